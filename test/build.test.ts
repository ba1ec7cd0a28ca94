// The checkpoint skill ships the CLI beside it (a plugin installed from git gets only committed
// files), so the committed copy must be the current build: in CI `npm test` builds first, and a stale
// committed helper then shows up as a change in git. Beside each dotagent.mjs the build writes
// dotagent.cjs, the CommonJS entry the hooks run (src/cli/boot-cjs.ts, SPEC §13 "Start-up").
import { describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { REPO, CLI } from "./support/cli.js";

const HELPER = "skills/checkpoint/scripts/dotagent.mjs";
const ENTRY = "skills/checkpoint/scripts/dotagent.cjs";
const CJS = join(REPO, "dist", "dotagent.cjs");
const inGit = (() => {
  try {
    execFileSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: REPO, stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();

describe("the bundled helper script", () => {
  it("is the one-file CLI, executable", () => {
    expect(readFileSync(join(REPO, HELPER))).toEqual(readFileSync(CLI));
    expect(statSync(join(REPO, HELPER)).mode & 0o111).not.toBe(0);
  });
  it("has the CommonJS entry beside it in dist/, the skill and the plugin, executable and small", () => {
    for (const copy of [ENTRY, join("plugin", ENTRY)]) {
      expect(readFileSync(join(REPO, copy)), copy).toEqual(readFileSync(CJS));
      expect(statSync(join(REPO, copy)).mode & 0o111).not.toBe(0);
    }
    // It holds none of the CLI: it runs the loader dotagent.mjs carries between two markers.
    expect(statSync(CJS).size).toBeLessThan(1500);
    const built = readFileSync(CLI, "latin1");
    expect(built.split("/*\x01L*/").length).toBe(2);
    expect(built.split("/*\x01E*/").length).toBe(2);
    expect(readFileSync(CJS, "latin1")).toMatch(/^#!\/usr\/bin\/env node\n\/\/ dotagent \d+\.\d+\.\d+/);
  });
  it("has a cold half that takes the modules it shares with the hot half from it, not a copy of its own", () => {
    const built = readFileSync(CLI, "latin1");
    const hot = built.slice(built.indexOf("/*\x01H"), built.indexOf("/*\x01C"));
    const packed = built.slice(built.indexOf("/*\x01C") + "/*\x01C".length, built.lastIndexOf("*/"));
    const cold = brotliDecompressSync(Buffer.from(packed, "base64")).toString("utf8");
    // scripts/build-cold-sharing.mjs: a shared module is a stub over what the hot half hands over,
    // so src/core/errors.ts's class (its name a string in the code) is in the hot half only.
    expect(cold).toContain("__dotagent_shared[");
    expect(hot).toContain('"DotagentError"');
    expect(cold).not.toContain('"DotagentError"');
  });
  it.skipIf(!inGit || !process.env.CI)("is committed as built (rebuild and commit it when src/ changes)", () => {
    for (const file of [HELPER, ENTRY]) {
      const diff = execFileSync("git", ["status", "--porcelain", "--", file], { cwd: REPO, encoding: "utf8" });
      expect(diff, `${file} differs from the committed one: run npm run build and commit it`).toBe("");
    }
  });
});

describe("the CommonJS entry (dotagent.cjs)", () => {
  const run = (entry: string, args: string[], input = "", cwd = REPO, state?: string) => {
    const r = spawnSync(process.execPath, [entry, ...args], {
      cwd,
      input,
      encoding: "utf8",
      env: { ...process.env, ...(state ? { DOTAGENT_STATE_HOME: state, DOTAGENT_CODE_CACHE: undefined } : {}) },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it("runs as dotagent.mjs does: the same output, and the helper it names is dotagent.mjs", () => {
    const example = join(REPO, "examples", "orphaned-tasks");
    for (const args of [["--version"], ["--help"], ["status", "--json", "--dir", example]])
      expect(run(CJS, args), args.join(" ")).toEqual(run(CLI, args));
    // The PreToolUse hook allows the model's helper line (which runs dotagent.mjs) through either entry.
    const line = JSON.stringify({
      session_id: "s-cjs",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: `node "${CLI}" status --json` },
      cwd: example,
    });
    const viaCjs = run(CJS, ["hook", "pre-tool-use"], line, example);
    expect(viaCjs.code).toBe(0);
    expect(JSON.parse(viaCjs.stdout).hookSpecificOutput.permissionDecision).toBe("allow");
    expect(viaCjs).toEqual(run(CLI, ["hook", "pre-tool-use"], line, example));
  });

  it("shares one code cache blob per command with dotagent.mjs: alternating, V8 takes it every time", () => {
    const state = mkdtempSync(join(tmpdir(), "dotagent-cjs-cache-"));
    try {
      const blob = () => {
        const dir = join(state, "code-cache");
        const name = readdirSync(dir).find((n) => n.endsWith("-status.bin"))!;
        return { mtime: statSync(join(dir, name)).mtimeMs, bytes: readFileSync(join(dir, name)) };
      };
      const first = run(CJS, ["status", "--json"], "", state, state);
      const made = blob();
      for (const entry of [CLI, CJS, CLI, CJS]) {
        expect(run(entry, ["status", "--json"], "", state, state)).toEqual(first);
        // Written again only when V8 refused it: unchanged means each entry took the other's.
        expect(blob().mtime).toBe(made.mtime);
        expect(blob().bytes.equals(made.bytes)).toBe(true);
      }
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  it("says so in one line when the dotagent.mjs beside it is missing or has no loader", () => {
    const dir = mkdtempSync(join(tmpdir(), "dotagent-cjs-alone-"));
    try {
      const entry = join(dir, "dotagent.cjs");
      copyFileSync(CJS, entry);
      const mjs = join(dir, "dotagent.mjs");
      const message = `dotagent: ${mjs} is missing, cut short or edited (${entry} runs the dotagent.mjs beside it); reinstall dotagent\n`;
      expect(run(entry, ["--version"], "", dir)).toEqual({ code: 1, stdout: "", stderr: message });
      writeFileSync(mjs, "#!/usr/bin/env node\nconsole.log('an older helper');\n");
      expect(run(entry, ["--version"], "", dir)).toEqual({ code: 1, stdout: "", stderr: message });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
