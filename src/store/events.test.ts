import { afterEach, describe, expect, it } from "vitest";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { appendEvents, readEvents } from "./events.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const file = () => {
  const d = mkdtempSync(join(tmpdir(), "dotagent-events-"));
  dirs.push(d);
  return join(d, "events.jsonl");
};
const AT = new Date("2026-11-20T12:00:00Z");

describe("event log", () => {
  it("appends numbered lines", () => {
    const f = file();
    appendEvents(dirname(f), f, [{ type: "a" }, { type: "b", task_id: "t" }], AT);
    appendEvents(dirname(f), f, [{ type: "c" }], AT);
    expect(readEvents(f).map((e) => [e.seq, e.type])).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    expect(readEvents(f)[1]).toEqual({ seq: 2, at: AT.toISOString(), type: "b", task_id: "t" });
  });

  it("ignores a torn last line and starts the next event on a fresh line", () => {
    const f = file();
    appendEvents(dirname(f), f, [{ type: "a" }], AT);
    appendFileSync(f, '{"seq":2,"at":"2026-11-20T12:0');
    expect(readEvents(f).map((e) => e.type)).toEqual(["a"]);
    appendEvents(dirname(f), f, [{ type: "b" }], AT);
    expect(readEvents(f).map((e) => [e.seq, e.type])).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
    expect(readFileSync(f, "utf8").split("\n").filter(Boolean)).toHaveLength(3);
  });

  it("a missing log reads as empty", () => {
    expect(readEvents(file())).toEqual([]);
  });
});
