// A state file of 1 MiB or more takes its own path (issue 41): execution.json is parsed element by
// element with each element frozen (src/store/parse-state-json.ts), and the next write copies the
// elements nobody replaced from the bytes read (src/store/state-json.ts). The table tests there
// prove the bytes; this runs the commands that read and change tasks on such a file through the
// built CLI, so a command that changed a task in place (a TypeError now) or a write that kept an
// old element would show here: each write leaves exactly JSON.stringify(value, null, 2) and the
// change it made.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildFixture } from "../scripts/bench-fixtures.mjs";
import { dotagent, expectNoStack, removeTemps, tempProject } from "./support/cli.js";

afterAll(removeTemps);

const EXECUTION = "memory/state/execution.json";

function execution(root: string): {
  bytes: Buffer;
  value: { tasks: { id: string; status: string; title?: string }[] };
} {
  const bytes = readFileSync(join(root, EXECUTION));
  return { bytes, value: JSON.parse(bytes.toString("utf8")) };
}

describe("a plan of over 1 MiB: read in pieces, written from the bytes read", () => {
  it("every task command leaves dotagent's layout, the change made and every other task as it was", () => {
    const root = tempProject();
    const fixture = buildFixture(root, 3200, new Date());
    const start = execution(root);
    expect(start.bytes.length).toBeGreaterThan(1024 * 1024);
    const pending = start.value.tasks.filter((t) => t.status === "pending").map((t) => t.id);

    const steps: [string[], (tasks: Map<string, { status: string; title?: string }>) => void][] = [
      [
        ["task", "complete", fixture.runningWithOutput],
        (t) => expect(t.get(fixture.runningWithOutput)!.status).toBe("complete"),
      ],
      [["task", "start", fixture.ready!], (t) => expect(t.get(fixture.ready!)!.status).toBe("running")],
      [
        ["task", "fail", fixture.ready!, "--error", "broke"],
        (t) => expect(t.get(fixture.ready!)!.status).toBe("pending"),
      ],
      [
        ["task", "add", "extra-1", "--title", "Extra", "--depends-on", pending.at(-1)!],
        (t) => expect(t.get("extra-1")!.status).toBe("pending"),
      ],
      [
        ["task", "edit", "extra-1", "--title", "Extra, renamed", "--yes"],
        (t) => expect(t.get("extra-1")!.title).toBe("Extra, renamed"),
      ],
      [
        ["task", "skip", "extra-1", "--reason", "done by hand", "--yes"],
        (t) => expect(t.get("extra-1")!.status).toBe("skipped"),
      ],
      [["task", "remove", pending.at(-2)!, "--yes"], (t) => expect(t.has(pending.at(-2)!)).toBe(false)],
    ];
    let before = start.value.tasks;
    for (const [args, changed] of steps) {
      const run = dotagent(root, [...args, "--json"]);
      expectNoStack(run.stderr);
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      const after = execution(root);
      expect(after.bytes.toString("utf8")).toBe(`${JSON.stringify(after.value, null, 2)}\n`);
      const byId = new Map(after.value.tasks.map((t) => [t.id, t]));
      changed(byId);
      // Every task the command had no reason to touch is as it was, field for field (a running
      // task whose session is gone is given back as cut off by any command that changes state).
      const touched = new Set(args.filter((a) => byId.has(a) || before.some((t) => t.id === a)));
      for (const task of before)
        if (!touched.has(task.id) && task.status !== "running") expect(byId.get(task.id)).toStrictEqual(task);
      before = after.value.tasks;
    }
    for (const args of [["validate"], ["status"], ["resume", "--dry-run"]]) {
      const run = dotagent(root, [...args, "--json"]);
      expectNoStack(run.stderr);
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
    }
  });
});
