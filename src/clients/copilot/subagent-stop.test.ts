import { describe, expect, it } from "vitest";
import type { AgentJob } from "../../core/agent-job.js";
import { reminder } from "../../claude/hooks.js";
import { inCopilotWords } from "./subagent-stop.js";

// Built by the shared reminder(), so a change of its wording that inCopilotWords no longer finds fails here.
const QA = { agent: "qa", phase: "VERIFICATION", output: "memory/reports/verification.json", check: true } as AgentJob;
const REMINDER = reminder(QA, "memory/reports/verification.json is not valid JSON", 1);

describe("a reminder in Copilot's words", () => {
  it("a report that exists is to be edited (Copilot's create refuses a file that exists); a missing one created", () => {
    expect(inCopilotWords(REMINDER, true)).toBe(
      'dotagent reminder 1 of 2: your report is not done: memory/reports/verification.json is not valid JSON. Write memory/reports/verification.json now: it exists, and `create` does not replace a file, so `edit` it into a JSON object with a boolean "passed". Then finish.',
    );
    expect(inCopilotWords(REMINDER, false)).toContain("now, with one `create` call: a JSON object");
  });
});
