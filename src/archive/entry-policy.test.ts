import { describe, expect, test } from "vitest";
import { checkEntry, DEFAULT_LIMITS, type EntryFacts } from "./entry-policy.js";

const file = (path: string, size = 10): EntryFacts => ({ path, type: "File", size });
const dir = (path: string): EntryFacts => ({ path, type: "Directory", size: 0 });

describe("allowed entries", () => {
  test.each([
    [file("dotagent-archive.json"), "dotagent-archive.json", "file"],
    [file("memory/state/phase.json"), "memory/state/phase.json", "file"],
    [file("memory/state/execution.json"), "memory/state/execution.json", "file"],
    [file("memory/state/events.jsonl"), "memory/state/events.jsonl", "file"],
    [file("memory/reports/demand.json"), "memory/reports/demand.json", "file"],
    [file("memory/reports/tasks/task-001.json"), "memory/reports/tasks/task-001.json", "file"],
    [dir("memory/"), "memory", "directory"],
    [dir("memory/state/"), "memory/state", "directory"],
    [dir("memory/reports/"), "memory/reports", "directory"],
    [dir("memory/reports/designs/"), "memory/reports/designs", "directory"],
    [{ path: "memory/reports/old.json", type: "OldFile", size: 1 }, "memory/reports/old.json", "file"],
  ])("%j", (facts, path, kind) => expect(checkEntry(facts, DEFAULT_LIMITS)).toEqual({ ok: true, path, kind }));
});

describe("refused entries", () => {
  test.each([
    [file("/tmp/evil"), "absolute path"],
    [file("\\evil"), "absolute path"],
    [file("C:/evil"), "absolute path"],
    [file("memory/state/../../evil"), "'..'"],
    [file("memory/reports/../../../evil"), "'..'"],
    [file("memory/reports/a\\..\\..\\evil"), "backslash"],
    [file("memory//reports/x"), "not a plain relative path"],
    [file("./memory/reports/x"), "not a plain relative path"],
    [file(""), "empty path"],
    [file("memory/reports/x\0y"), "NUL"],
    [file(`memory/reports/${"d/".repeat(30)}x`), "folders deep"],
    [{ path: "memory/reports/l", type: "SymbolicLink", size: 0, linkpath: "/tmp/x" }, 'symbolic link to "/tmp/x"'],
    [{ path: "memory/reports/h", type: "Link", size: 0, linkpath: "/etc/passwd" }, "hard link"],
    [{ path: "memory/reports/c", type: "CharacterDevice", size: 0 }, "device"],
    [{ path: "memory/reports/b", type: "BlockDevice", size: 0 }, "device"],
    [{ path: "memory/reports/f", type: "FIFO", size: 0 }, "FIFO"],
    [{ path: "memory/reports/s", type: "SparseFile", size: 0 }, "entry type"],
    [file("memory/state/.lock"), "outside"],
    [file("memory/state/.archive/x.tar.gz"), "outside"],
    [file("memory/state/phase.json.123"), "outside"],
    [file("memory/notes.txt"), "outside"],
    [file("src/index.ts"), "outside"],
    [file("memory/reports"), "outside"],
    [dir("memory/state/.archive/"), "outside"],
    [dir("src/"), "outside"],
    [file("memory/reports/x.json/"), "ends in '/'"],
    [file("memory/reports/big.json", DEFAULT_LIMITS.maxEntrySize + 1), "bytes (limit"],
  ])("%j: %s", (facts, reason) => {
    const verdict = checkEntry(facts, DEFAULT_LIMITS);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(reason);
  });
});

test("limits are parameters", () => {
  const limits = { ...DEFAULT_LIMITS, maxEntrySize: 100, maxDepth: 4 };
  expect(checkEntry(file("memory/reports/a.json", 100), limits).ok).toBe(true);
  expect(checkEntry(file("memory/reports/a.json", 101), limits).ok).toBe(false);
  expect(checkEntry(file("memory/reports/a/b.json"), limits).ok).toBe(true);
  expect(checkEntry(file("memory/reports/a/b/c.json"), limits).ok).toBe(false);
});
