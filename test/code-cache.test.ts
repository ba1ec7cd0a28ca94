// The built CLI's code cache (src/cli/boot.ts, src/store/code-cache.ts): each command's first run
// saves V8's blob in the state folder, later runs start from it (the blob is not written again, so
// V8 took it), a blob that is garbage is refused by V8 and replaced, and DOTAGENT_CODE_CACHE=0 keeps
// the folder empty. Spawned processes, not the CLI host: the cache is a process's start-up.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI } from "./support/cli.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dotagent-code-cache-cli-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const cacheDir = () => join(dir, "state", "code-cache");
function run(args: string[], extra: NodeJS.ProcessEnv = {}, cli = CLI) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, DOTAGENT_STATE_HOME: join(dir, "state"), DOTAGENT_CODE_CACHE: undefined, ...extra },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
const blobs = () => (existsSync(cacheDir()) ? readdirSync(cacheDir()).sort() : []);

describe("the built CLI's code cache", () => {
  it("saves a blob per command on its first run and starts from it after, with the same output", () => {
    const first = run(["status", "--json"]);
    expect(blobs()).toEqual([
      expect.stringMatching(new RegExp(`-${process.version.replaceAll(".", "\\.")}-${process.arch}-status\\.bin$`)),
    ]);
    const blob = join(cacheDir(), blobs()[0]!);
    const made = readFileSync(blob);
    const mtime = statSync(blob).mtimeMs;

    const second = run(["status", "--json"]);
    expect(second).toEqual(first);
    // Written only when V8 had no blob or refused it: unchanged means V8 took it.
    expect(statSync(blob).mtimeMs).toBe(mtime);
    expect(readFileSync(blob).equals(made)).toBe(true);

    run(["hook", "session-start"]);
    expect(blobs().map((name) => name.replace(/^.*-x64-|^.*-arm64-/, ""))).toEqual([
      "hook-session-start.bin",
      "status.bin",
    ]);
  });

  // The loader copies the cold half's bytes out, reads the blob into the file's own bytes, and makes
  // the cold half's text only when a command asks for it.
  it("runs the cold half after reading its blob into the file's memory", () => {
    const first = run(["schema", "phase"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).type).toBe("object");
    const blob = join(cacheDir(), blobs()[0]!);
    expect(statSync(blob).size).toBeLessThan(readFileSync(CLI).indexOf("/*\x01C"));
    const mtime = statSync(blob).mtimeMs;
    expect(run(["schema", "phase"])).toEqual(first);
    expect(statSync(blob).mtimeMs).toBe(mtime);
  });

  it("refuses a blob that is garbage, runs as without one, and replaces it", () => {
    const first = run(["status", "--json"]);
    const blob = join(cacheDir(), blobs()[0]!);
    const garbage = Buffer.alloc(statSync(blob).size, 7);
    writeFileSync(blob, garbage);
    expect(run(["status", "--json"])).toEqual(first);
    expect(readFileSync(blob).equals(garbage)).toBe(false);
    expect(run(["status", "--json"])).toEqual(first);
  });

  it("keeps nothing with DOTAGENT_CODE_CACHE=0", () => {
    const off = run(["status", "--json"], { DOTAGENT_CODE_CACHE: "0" });
    expect(off.code).not.toBeNull();
    expect(existsSync(cacheDir())).toBe(false);
  });

  // The halves sit in block comments after the loader (src/cli/boot.ts, scripts/build.mjs).
  it("holds its halves in comments the loader takes out; a line-end conversion changes nothing, a cut file one line", () => {
    const built = readFileSync(CLI, "latin1");
    expect(built.split("/*\x01H").length).toBe(2);
    expect(built.split("/*\x01C").length).toBe(2);
    // The hot half's own `*/` (there are some in the bundle) are written with a \x01 between.
    expect(built).toContain("*\x01/");
    const help = run(["--help"]);
    const status = run(["status", "--json"]);
    expect(help.code).toBe(0);

    const crlf = join(dir, "crlf.mjs");
    writeFileSync(crlf, built.replaceAll("\n", "\r\n"), "latin1");
    expect(run(["--help"], {}, crlf)).toEqual(help);
    expect(run(["status", "--json"], {}, crlf)).toEqual(status);

    const cut = join(dir, "cut.mjs");
    // Cut where the syntax still holds (cut inside a comment, V8 refuses the file before any of it runs).
    writeFileSync(cut, built.slice(0, built.indexOf("/*\x01C")), "latin1");
    const broken = run(["status"], {}, cut);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe(
      `dotagent: ${cut} is cut short or edited (a half of it is missing); reinstall dotagent\n`,
    );

    // A cold half whose bytes were changed: the commands that need it say so in one line; the rest run.
    const garbled = join(dir, "garbled.mjs");
    const at = built.indexOf("/*\x01C") + 1000;
    writeFileSync(garbled, built.slice(0, at) + "A".repeat(100) + built.slice(at + 100), "latin1");
    const schema = run(["schema", "phase", "--json"], {}, garbled);
    expect(schema.code).toBe(1);
    expect(JSON.parse(schema.stdout).error).toEqual({
      code: "helper_damaged",
      message: `${garbled} is cut short or edited (its cold half does not unpack); reinstall dotagent`,
      exit_code: 1,
    });
    expect(run(["status", "--json"], {}, garbled)).toEqual(status);
  });
});
