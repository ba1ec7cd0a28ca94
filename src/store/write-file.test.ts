// write-file.ts, the one write primitive: one test per attack (a link where a write lands, a link
// on the way), and the promises a normal write keeps (same bytes, mode, no temp file left). Every
// link points into this test's own temp folder: a "victim" file outside the root, never a system file.
import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { DotagentError } from "../core/errors.js";
import {
  appendFileInside,
  copyFileInside,
  linkInside,
  mkdirInside,
  placeInside,
  renameInside,
  writeFileInside,
  writeJsonInside,
} from "./write-file.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A temp folder holding the root (`project/`) and, beside it, a victim file and folder outside it. */
function setup(): { root: string; victim: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), "dotagent-write-file-"));
  dirs.push(base);
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(join(root, "memory", "state"), { recursive: true });
  mkdirSync(outside);
  const victim = join(outside, "victim.txt");
  writeFileSync(victim, "the victim's bytes\n");
  return { root, victim, outside };
}

/** The error `act` throws (a DotagentError is expected). */
function refusal(act: () => unknown): DotagentError {
  try {
    act();
  } catch (error) {
    return error as DotagentError;
  }
  throw new Error("expected a refusal");
}

const expectOneLine = (error: DotagentError, code: string, path: string) => {
  expect(error).toBeInstanceOf(DotagentError);
  expect([error.code, error.exitCode, error.details.path]).toEqual([code, 3, path]);
  expect(error.message).not.toContain("\n");
  expect(error.message).toContain(path);
};

describe("a link where the write lands: replaced, never followed", () => {
  const writes: Array<[string, (root: string, file: string) => void]> = [
    ["writeFileInside", (root, file) => writeFileInside(root, file, "dotagent's bytes\n")],
    ["writeJsonInside", (root, file) => writeJsonInside(root, file, { a: 1 })],
    ["writeFileInside, not durable", (root, file) => writeFileInside(root, file, "x", { durable: false })],
    ["writeFileInside with a mode", (root, file) => writeFileInside(root, file, "x", { mode: 0o755 })],
  ];
  it.each(writes)(
    "%s: the link to a file outside is replaced by the file; the victim keeps its bytes",
    (_name, write) => {
      const { root, victim } = setup();
      const file = join(root, "memory", "state", ".step-running.json");
      symlinkSync(victim, file);
      write(root, file);
      expect(readFileSync(victim, "utf8")).toBe("the victim's bytes\n");
      expect(lstatSync(file).isFile()).toBe(true);
    },
  );

  it("a dangling link is replaced too: nothing is created where it pointed", () => {
    const { root, outside } = setup();
    const file = join(root, "memory", "report.html");
    symlinkSync(join(outside, "planted.html"), file);
    writeFileInside(root, file, "<html>");
    expect(existsSync(join(outside, "planted.html"))).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("<html>");
  });
});

describe("a folder on the way that is a link out of the root: refused, nothing written", () => {
  const cases: Array<[string, (root: string, file: string) => void]> = [
    ["writeFileInside", (root, file) => writeFileInside(root, file, "x")],
    ["appendFileInside", (root, file) => appendFileInside(root, file, "x")],
    ["mkdirInside", (root, file) => mkdirInside(root, join(file, "..", "deeper"))],
    ["renameInside (to)", (root, file) => renameInside(root, join(root, "memory", "state", "a"), file)],
    ["linkInside (to)", (root, file) => linkInside(root, join(root, "memory", "state", "a"), file)],
    ["copyFileInside (to)", (root, file) => copyFileInside(root, join(root, "memory", "state", "a"), file)],
  ];
  it.each(cases)("%s through memory/reports/steps → a folder outside", (_name, act) => {
    const { root, outside } = setup();
    writeFileSync(join(root, "memory", "state", "a"), "a");
    mkdirSync(join(root, "memory", "reports"));
    symlinkSync(outside, join(root, "memory", "reports", "steps"));
    const before = readdirSync(outside);
    const error = refusal(() => act(root, join(root, "memory", "reports", "steps", "check.json")));
    expectOneLine(error, "path_outside_project", "memory/reports/steps");
    expect(error.message).toMatch(
      /^memory\/reports\/steps is a link that leads out of the project \(to .*outside\); for the person: remove the link, then run the command again$/,
    );
    expect(readdirSync(outside)).toEqual(before);
    expect(readFileSync(join(root, "memory", "state", "a"), "utf8")).toBe("a");
  });

  it("a link higher up (memory/ itself) is caught as well", () => {
    const { root, outside } = setup();
    rmSync(join(root, "memory"), { recursive: true });
    symlinkSync(outside, join(root, "memory"));
    expectOneLine(
      refusal(() => writeFileInside(root, join(root, "memory/state/phase.json"), "{}")),
      "path_outside_project",
      "memory",
    );
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
  });

  it("renameInside refuses a source under a link out, so nothing outside is moved in", () => {
    const { root, outside } = setup();
    symlinkSync(outside, join(root, "memory", "reports"));
    expectOneLine(
      refusal(() => renameInside(root, join(root, "memory/reports/victim.txt"), join(root, "memory/state/moved.txt"))),
      "path_outside_project",
      "memory/reports",
    );
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("the victim's bytes\n");
  });

  const others: Array<[string, (root: string, outside: string, at: string) => void, string]> = [
    ["a link to nothing", (_root, outside, at) => symlinkSync(join(outside, "gone"), at), "is a link to nothing"],
    [
      "a link to a file, where a folder belongs",
      (root, _outside, at) => {
        writeFileSync(join(root, "f"), "");
        symlinkSync(join(root, "f"), at);
      },
      "is a link to a file, where a folder belongs",
    ],
  ];
  it.each(others)("%s is refused the same way", (_name, plant, words) => {
    const { root, outside } = setup();
    plant(root, outside, join(root, "memory", "reports"));
    const error = refusal(() => writeFileInside(root, join(root, "memory/reports/x.json"), "{}"));
    expectOneLine(error, "path_outside_project", "memory/reports");
    expect(error.message).toContain(words);
  });

  it("a path that is not below the root at all is refused", () => {
    const { root, victim } = setup();
    expect(refusal(() => writeFileInside(root, victim, "x")).code).toBe("path_outside_project");
    expect(refusal(() => writeFileInside(root, join(root, "../outside/victim.txt"), "x")).code).toBe(
      "path_outside_project",
    );
    expect(readFileSync(victim, "utf8")).toBe("the victim's bytes\n");
  });
});

describe("links that stay inside, and the root itself", () => {
  it("a folder link that stays inside the root is followed", () => {
    const { root } = setup();
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "memory", "reports"));
    writeFileInside(root, join(root, "memory/reports/x.json"), "{}");
    expect(readFileSync(join(root, "real", "x.json"), "utf8")).toBe("{}");
  });

  it("the root may be reached through a link: it is compared by its real path", () => {
    const { root } = setup();
    const linked = join(root, "..", "linked-project");
    symlinkSync(root, linked);
    writeFileInside(linked, join(linked, "memory/state/phase.json"), "{}");
    mkdirInside(linked, join(linked, "memory/reports/tasks"));
    expect(readFileSync(join(root, "memory", "state", "phase.json"), "utf8")).toBe("{}");
    expect(statSync(join(root, "memory", "reports", "tasks")).isDirectory()).toBe(true);
  });

  it('link: "inside" writes through a link to a file inside the root, and refuses one that leads out', () => {
    const { root, victim } = setup();
    writeFileSync(join(root, "shared.gitignore"), "dist/\n");
    symlinkSync(join(root, "shared.gitignore"), join(root, ".gitignore"));
    writeFileInside(root, join(root, ".gitignore"), "dist/\n/memory/runs/\n", { link: "inside" });
    expect(lstatSync(join(root, ".gitignore")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, "shared.gitignore"), "utf8")).toBe("dist/\n/memory/runs/\n");
    rmSync(join(root, ".gitignore"));
    symlinkSync(victim, join(root, ".gitignore"));
    const error = refusal(() => writeFileInside(root, join(root, ".gitignore"), "x", { link: "inside" }));
    expectOneLine(error, "path_outside_project", ".gitignore");
    expect(readFileSync(victim, "utf8")).toBe("the victim's bytes\n");
  });

  it("a refusal names the root as the caller calls it", () => {
    const { root, outside } = setup();
    symlinkSync(outside, join(root, "thread"));
    expect(
      refusal(() => writeFileInside(root, join(root, "thread/x.json"), "{}", { within: "the checkpointer's folder" }))
        .message,
    ).toContain("leads out of the checkpointer's folder");
  });

  it("a control character in a link's target cannot break the one line", () => {
    const { root, outside } = setup();
    mkdirSync(join(outside, "a\nb"));
    symlinkSync(join(outside, "a\nb"), join(root, "memory", "reports"));
    expect(refusal(() => writeFileInside(root, join(root, "memory/reports/x"), "")).message).not.toContain("\n");
  });
});

describe("appends: never through a link, never blocking", () => {
  it("a link at the file is refused (path_is_link), the victim unchanged", () => {
    const { root, victim } = setup();
    symlinkSync(victim, join(root, "memory", "state", "events.jsonl"));
    expectOneLine(
      refusal(() => appendFileInside(root, join(root, "memory/state/events.jsonl"), "{}\n")),
      "path_is_link",
      "memory/state/events.jsonl",
    );
    expect(readFileSync(victim, "utf8")).toBe("the victim's bytes\n");
  });

  it("a FIFO nobody reads fails at once (ENXIO), never blocks", () => {
    const { root } = setup();
    execFileSync("mkfifo", [join(root, "trace.jsonl")]);
    expect(() => appendFileInside(root, join(root, "trace.jsonl"), "x\n")).toThrowError(
      expect.objectContaining({ code: "ENXIO" }),
    );
  });

  it("appends to a regular file, creating it when missing", () => {
    const { root } = setup();
    appendFileInside(root, join(root, "memory/state/events.jsonl"), "a\n", { fsync: true });
    appendFileInside(root, join(root, "memory/state/events.jsonl"), "b\n");
    expect(readFileSync(join(root, "memory", "state", "events.jsonl"), "utf8")).toBe("a\nb\n");
  });
});

describe("a normal write keeps today's promises", () => {
  it("same bytes, no temp file left, a replaced file keeps its mode, a new one gets the mode asked exactly", () => {
    const { root } = setup();
    const file = join(root, "memory", "state", "phase.json");
    writeFileInside(root, file, "one");
    writeFileInside(root, file, Buffer.from("two"));
    expect(readFileSync(file, "utf8")).toBe("two");
    expect(readdirSync(join(root, "memory", "state"))).toEqual(["phase.json"]);
    writeFileInside(root, join(root, "helper.mjs"), "#!/usr/bin/env node\n", { mode: 0o755 });
    expect(statSync(join(root, "helper.mjs")).mode & 0o777).toBe(0o755);
    writeFileInside(root, join(root, "helper.mjs"), "again\n");
    expect(statSync(join(root, "helper.mjs")).mode & 0o777).toBe(0o755);
    chmodSync(join(root, "helper.mjs"), 0o4755);
    writeFileInside(root, join(root, "helper.mjs"), "no setuid bit kept\n");
    expect(statSync(join(root, "helper.mjs")).mode & 0o7777).toBe(0o755);
  });

  it("a failed write leaves the old file and no temp file", () => {
    const { root } = setup();
    const file = join(root, "memory", "state", "phase.json");
    writeFileInside(root, file, "old");
    mkdirSync(join(root, "memory", "state", "folder"));
    expect(() => writeFileInside(root, join(root, "memory", "state", "folder"), "x")).toThrow();
    expect(readFileSync(file, "utf8")).toBe("old");
    expect(readdirSync(join(root, "memory", "state")).sort()).toEqual(["folder", "phase.json"]);
  });

  it("the temp file is `<name>.<digits>`, the shape the sweeps remove", () => {
    const { root } = setup();
    const seen: string[] = [];
    const file = join(root, "memory", "state", "execution.json");
    // A file where the rename lands makes the write fail after the temp is made: the temp is removed, its name seen in the error's path.
    mkdirSync(file);
    try {
      writeFileInside(root, file, "x");
    } catch (error) {
      seen.push(String((error as NodeJS.ErrnoException).path ?? ""), String((error as { dest?: string }).dest ?? ""));
    }
    expect(seen.some((p) => /execution\.json\.\d+$/.test(p))).toBe(true);
  });

  it("mkdirInside makes each missing folder (and the root), returns the first, and is idempotent", () => {
    const { root } = setup();
    const fresh = join(root, "..", "fresh-root");
    expect(mkdirInside(fresh, join(fresh, "a/b/c"))).toBe(fresh);
    expect(statSync(join(fresh, "a", "b", "c")).isDirectory()).toBe(true);
    expect(mkdirInside(fresh, join(fresh, "a/b/c"))).toBeUndefined();
    expect(mkdirInside(root, join(root, "memory/reports/tasks"))).toBe(join(root, "memory", "reports"));
  });

  it('paths are taken as fs takes them: a relative root and paths joined to it (a library caller\'s `new DotagentSaver("threads")`)', () => {
    const { root } = setup();
    const rel = relative(process.cwd(), root);
    mkdirInside(rel, join(rel, "threads", "t"));
    writeFileInside(rel, join(rel, "threads", "t", "thread.json"), "{}");
    appendFileInside(rel, join(rel, "threads", "t", "log"), "a\n");
    expect(readdirSync(join(root, "threads", "t")).sort()).toEqual(["log", "thread.json"]);
  });

  it("placeInside stops at a folder not there yet: the write then fails as the disk says (ENOENT)", () => {
    const { root } = setup();
    expect(placeInside(root, join(root, "no/such/folder/x.json")).abs).toBe(
      join(root, "no", "such", "folder", "x.json"),
    );
    expect(() => writeFileInside(root, join(root, "no/such/folder/x.json"), "x")).toThrowError(
      expect.objectContaining({ code: "ENOENT" }),
    );
  });
});
