// develop unchanged for its users (issue 30): every example's state, written before workflow
// definitions existed, resumes and reports exactly as it did with the last dotagent without them
// (8da0e98), whose answers test/golden/examples-before-definitions.json holds (recorded by
// scripts/record-examples.mjs). The one difference allowed: `status` counts tasks of the
// `skipped` status that came later (0 in every example).
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO } from "./support/cli.js";

const golden = JSON.parse(readFileSync(join(REPO, "test/golden/examples-before-definitions.json"), "utf8")) as Record<
  string,
  { resume: { code: number; json: unknown }; status: { code: number; json: { tasks?: Record<string, number> } } }
>;

describe("every example resumes as before workflow definitions", () => {
  const now = JSON.parse(
    spawnSync(process.execPath, [join(REPO, "scripts/record-examples.mjs"), CLI, join(REPO, "examples")], {
      encoding: "utf8",
    }).stdout,
  ) as typeof golden;
  it("covers every example", () => {
    expect(Object.keys(now)).toEqual(Object.keys(golden));
  });
  for (const name of Object.keys(golden)) {
    it(`${name}: resume --dry-run and status answer as they did`, () => {
      // Since issue 40 a decision in --json also says how the person answers it (SPEC §10): an addition.
      for (const answer of [now[name]!.resume, now[name]!.status] as Array<{
        json: { decision?: { answers?: string } | null };
      }>) {
        if (answer.json.decision?.answers === undefined) continue;
        expect(answer.json.decision.answers).toBe('Reply "yes" or "no"; any other reply is not taken as an answer.');
        delete answer.json.decision.answers;
      }
      expect(now[name]!.resume).toEqual(golden[name]!.resume);
      const { skipped, ...tasks } = now[name]!.status.json.tasks ?? {};
      expect(skipped ?? 0).toBe(0);
      expect({
        ...now[name]!.status,
        json: { ...now[name]!.status.json, ...(now[name]!.status.json.tasks ? { tasks } : {}) },
      }).toEqual(golden[name]!.status);
    });
  }
});
