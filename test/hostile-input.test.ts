// Issue 15: hostile and odd input that lost data, hung, or gave a wrong answer. One named test per
// case, run against the built CLI the way a user or an agent would (through pipes).
import { afterEach, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  CLI,
  REPO,
  dotagent,
  expectNoStack,
  readJson,
  removeTemps,
  tempProject,
  treeBytes,
  writeJson,
} from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { unprivileged } from "./support/unprivileged.js";

afterEach(removeTemps);

/** A workflow started (`init --request x`): made once per file, a copy per test. */
function initialized(): string {
  return copyOfTemplate("init x", (p) => expect(dotagent(p, ["init", "--request", "x"]).code).toBe(0));
}

/** A workflow at IMPLEMENTATION, gates passed through the CLI. */
function atImplementation(): string {
  const p = tempProject();
  dotagent(p, ["init", "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
  dotagent(p, ["phase", "approve", "REQUIREMENTS"]);
  dotagent(p, ["phase", "complete"]);
  writeJson(p, "memory/reports/roundtable.json", { recommend: "a" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
  dotagent(p, ["phase", "approve", "ARCHITECTURE"]);
  expect(dotagent(p, ["phase", "complete", "ARCHITECTURE"]).code).toBe(0);
  return p;
}

/** Runs the CLI with stdout on a pipe and a large buffer: what an agent reads. */
function throughPipe(cwd: string, args: string[]): { code: number; bytes: number; stdout: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: result.status ?? -1, bytes: Buffer.byteLength(result.stdout), stdout: result.stdout };
}

describe("issue 15, case 3: output over 64 KiB through a pipe arrives whole", () => {
  it("task next --json and log print every byte before exiting", () => {
    const p = atImplementation();
    const tasks = Array.from({ length: 5000 }, (_, i) => ({ id: `t${i}`, title: `task number ${i}` }));
    writeJson(p, "tasks.json", tasks);
    expect(dotagent(p, ["task", "import", "tasks.json"]).code).toBe(0);
    const next = throughPipe(p, ["task", "next", "--json"]);
    expect(next.code).toBe(0);
    expect(next.bytes).toBeGreaterThan(256 * 1024);
    expect(JSON.parse(next.stdout).tasks).toHaveLength(5000);

    const events = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ seq: 100 + i, at: "2026-11-20T10:00:00.000Z", type: "note", text: "x".repeat(40) }),
    );
    writeFileSync(join(p, "memory/state/events.jsonl"), `${events.join("\n")}\n`, { flag: "a" });
    const log = throughPipe(p, ["log", "-n", "5000", "--json"]);
    expect(log.code).toBe(0);
    expect(log.bytes).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(log.stdout).events.length).toBeGreaterThan(3000);
  });
});

describe("issue 15, case 1: a stray memory/state/.clearing never clears unarchived state", () => {
  it.each([
    ["garbage", "garbage\n"],
    ["a missing archive", '{"archive":"missing.tar.gz"}\n'],
    ["a path, not a name", '{"archive":"../../x.tar.gz"}\n'],
  ])("a marker with %s: resume asks (exit 5), validate names the marker (exit 3), nothing is removed", (_, marker) => {
    const p = initialized();
    writeJson(p, "memory/reports/demand.json", { a: 1 });
    writeFileSync(join(p, "memory/state/.clearing"), marker);
    const before = treeBytes(p);
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json).toMatchObject({ situation: "corrupt", next: { action: "confirm_fresh_start" } });
    expect(resumed.json.errors[0]).toMatchObject({ code: "clearing_invalid", file: "memory/state/.clearing" });
    const validated = dotagent(p, ["validate", "--json"]);
    expect(validated.code).toBe(3);
    expect(validated.json.errors[0]).toMatchObject({ file: "memory/state/.clearing" });
    expect(dotagent(p, ["phase", "approve"]).code).toBe(3);
    expect(treeBytes(p)).toEqual(before);
    // The way out it names: archive, which keeps everything.
    const archived = dotagent(p, ["archive", "--json"]);
    expect(archived.code).toBe(0);
    expect(existsSync(join(p, "memory/state/.clearing"))).toBe(false);
    expect(listTar(p, archived.json.archived)).toEqual(
      expect.arrayContaining(["memory/reports/demand.json", "memory/state/phase.json"]),
    );
  });

  it("a marker naming a real archive whose content was altered is corrupt state, not a clear", () => {
    const p = initialized();
    writeJson(p, "memory/reports/demand.json", { a: 1 });
    const archived = dotagent(p, ["archive", "--json"]).json.archived as string;
    dotagent(p, ["init", "--request", "y"]);
    writeJson(p, "memory/reports/demand.json", { b: 2 });
    // Damage the archive: same name, other content (a tar.gz of the wrong bytes).
    const file = join(p, "memory/state/.archive", archived);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 40));
    writeFileSync(join(p, "memory/state/.clearing"), JSON.stringify({ archive: archived }));
    const before = treeBytes(join(p, "memory/reports"));
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json.errors[0].message).toContain("does not verify");
    expect(treeBytes(join(p, "memory/reports"))).toEqual(before);
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(true);
  });

  it("finishing a real cut-off clear keeps a report written since (not in the archive), and the marker", () => {
    const p = initialized();
    writeJson(p, "memory/reports/demand.json", { a: 1 });
    const archived = dotagent(p, ["archive", "--json"]).json.archived as string;
    // As if the clear of that archive had been cut off: the archived files are back, and one more.
    dotagent(p, ["archive", "restore", archived]);
    writeFileSync(join(p, "memory/state/.clearing"), JSON.stringify({ archive: archived }));
    writeJson(p, "memory/reports/new.json", { written: "after the archive" });
    const resumed = dotagent(p, ["resume"]);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain("memory/reports/new.json is not in the archive");
    expect(readJson(p, "memory/reports/new.json")).toEqual({ written: "after the archive" });
    expect(readJson(p, "memory/reports/demand.json")).toEqual({ a: 1 });
    expect(existsSync(join(p, "memory/state/.clearing"))).toBe(true);
    rmSync(join(p, "memory/reports/new.json"));
    expect(dotagent(p, ["resume", "--json"]).json).toMatchObject({
      situation: "none",
      repairs: [{ code: "clear_finished" }],
    });
    expect(existsSync(join(p, "memory/reports/demand.json"))).toBe(false);
    expect(existsSync(join(p, "memory/state/.clearing"))).toBe(false);
  });

  it("a marker that is a folder is reported, not an internal error", () => {
    const p = initialized();
    mkdirSync(join(p, "memory/state/.clearing"));
    const resumed = dotagent(p, ["resume"]);
    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toContain("memory/state/.clearing is a folder");
    expect(resumed.stderr).not.toContain("unexpected");
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(true);
  });
});

describe("issue 15, case 2: archive and fresh starts never delete what they did not archive", () => {
  it("a report over 64 MiB: archive refuses, naming it, and changes nothing", () => {
    const p = initialized();
    writeFileSync(join(p, "memory/reports/big.bin"), Buffer.alloc(64 * 1024 * 1024 + 1));
    const result = dotagent(p, ["archive", "--json"]);
    expect(result.code).toBe(1);
    expect(result.json.error).toMatchObject({ code: "not_archivable", path: "memory/reports/big.bin" });
    expect(statSync(join(p, "memory/reports/big.bin")).size).toBe(64 * 1024 * 1024 + 1);
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(true);
    expect(existsSync(join(p, "memory/state/.clearing"))).toBe(false);
  });

  it("a path deeper than 32 levels stays, and so does everything else", () => {
    const p = initialized();
    const deep = join(p, "memory/reports", ...Array.from({ length: 32 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "deep.json"), "{}");
    const result = dotagent(p, ["init", "--request", "y", "--yes"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot be archived");
    expect(readFileSync(join(deep, "deep.json"), "utf8")).toBe("{}");
    expect(readJson(p, "memory/state/phase.json").workflow_id).toBe("wf-x");
  });

  it("a folder named phase.json is refused as state, never removed", () => {
    const p = initialized();
    rmSync(join(p, "memory/state/phase.json"));
    mkdirSync(join(p, "memory/state/phase.json"));
    writeFileSync(join(p, "memory/state/phase.json/keep.txt"), "mine");
    const result = dotagent(p, ["archive"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("memory/state/phase.json is a folder");
    expect(readFileSync(join(p, "memory/state/phase.json/keep.txt"), "utf8")).toBe("mine");
  });
});

function listTar(root: string, name: string): string[] {
  const out = spawnSync("tar", ["-tzf", join(root, "memory/state/.archive", name)], { encoding: "utf8" });
  return out.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/\/$/, ""));
}

/** Runs the CLI with a hard time limit: a hang is a failure, not a stuck test run. */
function bounded(
  cwd: string,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): { code: number | null; stdout: string; stderr: string; signal: string | null } {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: 10_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1", DOTAGENT_LOCK_WAIT_MS: "300", ...options.env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, signal: result.signal };
}

describe("issue 15, case 4: a report that is a link to a FIFO never hangs anything", () => {
  it("status, resume, phase complete, validate and the hook answer at once", () => {
    const p = initialized();
    execFileSync("mkfifo", [join(p, "memory/reports/f")]);
    symlinkSync("f", join(p, "memory/reports/demand.json"));
    for (const args of [
      ["status", "--json"],
      ["resume", "--json"],
      ["validate", "--json"],
      ["phase", "complete"],
      ["hook", "session-start"],
    ]) {
      const result = bounded(p, args);
      expect(result.signal, args.join(" ")).toBeNull();
      expectNoStack(result.stderr);
    }
    expect(bounded(p, ["phase", "complete"]).stderr).toContain("not a regular file");
    expect(JSON.parse(bounded(p, ["validate", "--json"]).stdout).warnings).toContainEqual(
      expect.objectContaining({ code: "report_invalid", file: "memory/reports/demand.json" }),
    );
  });
});

describe("issue 15, case 5: a dangling symlink at the lock never spins", () => {
  it("the next locking command takes it over, within the wait", () => {
    const p = initialized();
    symlinkSync("nowhere", join(p, "memory/state/.lock"));
    const result = bounded(p, ["task", "add", "t1"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("took over an unreadable lock");
    expect(existsSync(join(p, "memory/state/.lock"))).toBe(false);
  });
});

describe("issue 15, case 7: task import reads a bounded amount", () => {
  it("task import /dev/zero is refused at once, naming the kind of file", () => {
    const p = initialized();
    const result = bounded(p, ["task", "import", "/dev/zero"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("/dev/zero is a device, not a regular file");
  });

  it("endless standard input is refused at the 64 MiB limit", () => {
    const p = initialized();
    const result = spawnSync(
      "sh",
      ["-c", `head -c 100000000 /dev/zero | "${process.execPath}" "${CLI}" task import -`],
      { cwd: p, encoding: "utf8", timeout: 20_000 },
    );
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("standard input is over the 64 MiB limit");
  });
});

describe("issue 15, case 8: unreadable state is not missing state", () => {
  it("memory a file: every command names it (exit 3), the hook says the state cannot be read", () => {
    const p = tempProject();
    writeFileSync(join(p, "memory"), "not a folder");
    for (const args of [
      ["status", "--json"],
      ["resume"],
      ["validate"],
      ["log"],
      ["init", "--request", "x"],
      ["archive", "list"],
      ["install"],
    ]) {
      const result = dotagent(p, args);
      expect(result.code, args.join(" ")).toBe(3);
      expect(`${result.stdout}${result.stderr}`, args.join(" ")).toContain("memory is a file");
      expect(result.stdout).not.toContain('"situation": "none"');
    }
    const hook = dotagent(p, ["hook", "session-start"], { input: JSON.stringify({ source: "resume", cwd: p }) });
    expect(hook.code).toBe(0);
    expect(hook.json.hookSpecificOutput.additionalContext).toContain("cannot be read");
  });

  it("--dir naming a file is an error, not `situation: none`", () => {
    const p = tempProject();
    writeFileSync(join(p, "file"), "");
    const result = dotagent(p, ["status", "--dir", "file"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("is not a folder");
  });

  it("phase.json that the disk refuses to read (EACCES; skipped as root, where permissions are moot) is an error naming it", () => {
    if (process.getuid?.() === 0) return; // root reads mode-000 files: the case cannot be provoked here
    const p = initialized();
    chmodSync(join(p, "memory/state/phase.json"), 0);
    const result = dotagent(p, ["status"]);
    chmodSync(join(p, "memory/state/phase.json"), 0o644);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("memory/state/phase.json cannot be read (EACCES)");
  });
});

describe("issue 15, case 9: state paths are real files and folders inside the project", () => {
  it.each([
    ["memory/state/events.jsonl", "file"],
    ["memory/state/phase.json", "file"],
    ["memory/state", "folder"],
  ])("%s as a link out of the project: refused, nothing written outside, validate names it", (rel, kind) => {
    const p = initialized();
    const outside = tempProject();
    const target = join(outside, "target");
    renameSync(join(p, rel), target);
    symlinkSync(target, join(p, rel));
    const before = treeBytes(outside);
    const added = dotagent(p, ["task", "add", "t1"]);
    expect(added.code).toBe(3);
    expect(added.stderr).toContain(`${rel} is a symbolic link`);
    expect(added.stderr).toContain(`real ${kind}`);
    expect(treeBytes(outside)).toEqual(before);
    const validated = dotagent(p, ["validate", "--json"]);
    expect(validated.code).toBe(3);
    expect(validated.json.error).toMatchObject({ code: "state_path_invalid", path: rel });
  });
});

describe("issue 15, case 10: install refuses settings it does not understand, changing nothing", () => {
  it.each([
    ['{"hooks": null}', '"hooks": null'],
    ['{"hooks": []}', '"hooks": an array'],
    ['{"hooks": {"SessionStart": {"x": 1}}}', '"hooks.SessionStart": an object'],
    ['{"hooks": {"SessionStart": [5]}}', '"hooks.SessionStart[0]"'],
  ])("settings.json %s", (settings, named) => {
    const p = tempProject();
    mkdirSync(join(p, ".claude"));
    writeFileSync(join(p, ".claude/settings.json"), settings);
    const before = treeBytes(p);
    const result = dotagent(p, ["install", "--json"]);
    expect(result.code).toBe(1);
    expect(result.json.error.code).toBe("settings_invalid");
    expect(result.json.error.message).toContain(named);
    expect(result.json.error.message).toContain("settings.json");
    expect(result.stderr).toBe(""); // with --json the error is said once, in the JSON
    expect(treeBytes(p)).toEqual(before);
  });

  it("a dangling settings.json link is refused, not replaced", () => {
    const p = tempProject();
    mkdirSync(join(p, ".claude"));
    symlinkSync("gone.json", join(p, ".claude/settings.json"));
    const result = dotagent(p, ["install"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("does not exist");
    expect(lstatSync(join(p, ".claude/settings.json")).isSymbolicLink()).toBe(true);
  });
});

describe("issue 15, case 11: expected conditions are not internal errors", () => {
  it.each([
    [
      "settings.json a folder",
      (p: string) => mkdirSync(join(p, ".claude/settings.json"), { recursive: true }),
      ["install"],
      "settings.json is a folder",
    ],
    [".claude a file", (p: string) => writeFileSync(join(p, ".claude"), ""), ["install"], ".claude is a file"],
    [
      ".archive a file",
      (p: string) => (dotagent(p, ["init", "--request", "x"]), writeFileSync(join(p, "memory/state/.archive"), "")),
      ["archive", "list"],
      "memory/state/.archive is a file",
    ],
    [
      "events.jsonl a folder",
      (p: string) => (
        dotagent(p, ["init", "--request", "x"]),
        rmSync(join(p, "memory/state/events.jsonl")),
        mkdirSync(join(p, "memory/state/events.jsonl"))
      ),
      ["log"],
      "memory/state/events.jsonl is a folder",
    ],
  ])("%s", (_, setUp, args, named) => {
    const p = tempProject();
    setUp(p);
    const result = dotagent(p, args as string[]);
    expect(result.code).toBeGreaterThan(0);
    expect(result.stderr).toContain(named);
    expect(result.stderr).not.toContain("unexpected");
    expect(result.stderr).not.toContain("please report");
  });
});

describe("issue 15, case 12: smaller wrong answers", () => {
  it("the hook exits 0 even with flags it does not know", () => {
    const p = tempProject();
    expect(dotagent(p, ["hook", "session-start", "--bogus"]).code).toBe(0);
  });

  it("a lock from another host with a future acquired_at is taken over, not waited on forever", () => {
    const p = initialized();
    writeFileSync(
      join(p, "memory/state/.lock"),
      JSON.stringify({ pid: 1, hostname: "elsewhere", acquired_at: "2999-01-01T00:00:00Z", command: "x", token: "t" }),
    );
    const result = dotagent(p, ["task", "add", "t1"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("in the future");
  });

  it("resume --help names only examples that exist", () => {
    const help = dotagent(tempProject(), ["resume", "--help"]).stdout;
    for (const [, name] of help.matchAll(/examples\/([\w-]+)/g))
      expect(existsSync(join(REPO, "examples", name!)), name).toBe(true);
  });

  it("a 10 KB id is refused naming the 128-character limit, not echoed whole", () => {
    const p = initialized();
    const result = dotagent(p, ["task", "add", "a".repeat(10_000)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("128 characters");
    expect(result.stderr.length).toBeLessThan(400);
  });
});

describe("issue 21, case 1: a crafted .claude/.dotagent-install.json never deletes outside .claude/", () => {
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");
  /** A project inside a folder that also holds the victims: a file and an empty folder. */
  function installedBesideVictims(): { outside: string; p: string } {
    const outside = tempProject();
    const p = join(outside, "project");
    mkdirSync(p);
    expect(dotagent(p, ["install"], { env: { HOME: outside } }).code).toBe(0);
    writeFileSync(join(outside, "victim.txt"), "keep me");
    mkdirSync(join(outside, "x"));
    return { outside, p };
  }
  const craft = (p: string, edit: (m: any) => void) => {
    const m = readJson(p, ".claude/.dotagent-install.json");
    edit(m);
    writeJson(p, ".claude/.dotagent-install.json", m);
  };

  it("a files entry ../../victim.txt with its hash: install and --uninstall say they ignore it, and the file stays", () => {
    const { outside, p } = installedBesideVictims();
    craft(p, (m) => m.files.push({ path: "../../victim.txt", sha256: sha("keep me") }));
    const plain = dotagent(p, ["install"], { env: { HOME: outside } });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(
      "skip      ../../victim.txt  (manifest entry climbs out of the install folder with ..: ignored, nothing done to it)",
    );
    const removed = dotagent(p, ["install", "--uninstall", "--json"], { env: { HOME: outside } });
    expect(removed.code).toBe(0);
    expect(removed.json.changes).toContainEqual({
      action: "skip",
      path: "../../victim.txt",
      reason: "manifest entry climbs out of the install folder with ..: ignored, nothing done to it",
    });
    expect(
      removed.json.changes
        .filter((c: { action: string }) => c.action === "remove")
        .map((c: { path: string }) => c.path),
    ).not.toContain("../../victim.txt");
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("keep me");
    expect(existsSync(join(p, ".claude/skills"))).toBe(false);
  });

  it("a dirs entry ../../x: --uninstall leaves the empty folder outside and says so", () => {
    const { outside, p } = installedBesideVictims();
    craft(p, (m) => m.dirs.push("../../x", join(outside, "x")));
    const removed = dotagent(p, ["install", "--uninstall", "--json"], { env: { HOME: outside } });
    expect(removed.code).toBe(0);
    expect(removed.json.changes).toContainEqual(expect.objectContaining({ action: "skip", path: "../../x" }));
    expect(removed.json.changes).toContainEqual(expect.objectContaining({ action: "skip", path: join(outside, "x") }));
    expect(statSync(join(outside, "x")).isDirectory()).toBe(true);
  });

  it("an entry through a .claude folder that links out: --uninstall leaves the file it leads to", () => {
    const { outside, p } = installedBesideVictims();
    symlinkSync(outside, join(p, ".claude/out"));
    craft(p, (m) => {
      m.files.push({ path: "out/victim.txt", sha256: sha("keep me") });
      m.dirs.push("out/x");
    });
    const removed = dotagent(p, ["install", "--uninstall", "--json"], { env: { HOME: outside } });
    expect(removed.code).toBe(0);
    expect(removed.json.changes).toContainEqual({
      action: "skip",
      path: "out/victim.txt",
      reason: "is inside out, a link that leads out of the install folder: left alone",
    });
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("keep me");
    expect(statSync(join(outside, "x")).isDirectory()).toBe(true);
  });
});

describe("issue 21, case 13: an unreadable memory/reports reads as unreadable, never as missing or corrupt", () => {
  it("status, validate and resume --dry-run exit 3 naming the report (run as nobody when the tests run as root)", (context) => {
    const p = initialized();
    writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
    const run = unprivileged(p);
    if (run === null) return context.skip("root without setpriv: nobody to run as who cannot read past chmod 000");
    chmodSync(join(p, "memory/reports"), 0o000);
    try {
      for (const args of [
        ["status", "--json"],
        ["validate", "--json"],
        ["resume", "--dry-run", "--json"],
      ]) {
        const r = run(args);
        expect(r.code, args[0]).toBe(3);
        expect(r.json.error, args[0]).toMatchObject({
          code: "state_unreadable",
          path: "memory/reports/demand.json",
          errno: "EACCES",
        });
      }
      const plain = run(["status"]);
      expect(plain.stderr.trim()).toBe(
        "dotagent: memory/reports/demand.json cannot be read (EACCES); the reports are there but unreadable: check the permissions of memory/reports/ and its folders",
      );
    } finally {
      chmodSync(join(p, "memory/reports"), 0o755);
    }
    expect(readJson(p, "memory/reports/demand.json")).toEqual({ stories: ["sign in"] });
  });
});
