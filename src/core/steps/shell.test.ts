import { describe, expect, it } from "vitest";
import type { ShellStep } from "../flow.js";
import { reports } from "../fixtures.test-support.js";
import type { NextAction } from "../plan-resume.js";
import { shellKind } from "./shell.js";
import { resumeAt, spawnAt } from "./context.test-support.js";

const OUT = "memory/reports/lint.json";
const LINT: ShellStep = { id: "LINT", kind: "shell", run: "npm run lint", reports: [OUT] };

const rows: [string, Record<string, object>, NextAction][] = [
  [
    "no report → run the command",
    {},
    {
      action: "run_step",
      agent: null,
      tasks: [],
      reason: "run LINT's command (`npm run lint`): `dotagent step run LINT`",
      step: "LINT",
    },
  ],
  [
    "a report that is not valid → run it again",
    { [OUT]: { status: "invalid", reason: "is not JSON" } },
    {
      action: "run_step",
      agent: null,
      tasks: [],
      reason: "run LINT's command (`npm run lint`): `dotagent step run LINT`",
      step: "LINT",
    },
  ],
  [
    "a valid report that did not pass → the workflow fails until fixed",
    { [OUT]: { passed: false } },
    {
      action: "workflow_failed",
      agent: null,
      tasks: [],
      reason:
        "LINT: `npm run lint` failed (lint.json says passed: false); fix the cause, then `dotagent step run LINT --again`",
    },
  ],
];

describe("shell step: the resume rule", () => {
  it.each(rows)("%s", (_name, files, next) =>
    expect(shellKind.next(LINT, resumeAt({ reports: reports(files) }))).toEqual(next),
  );
});

describe("shell step: transitions and the runner", () => {
  it.each([
    ["passed", { [OUT]: { passed: true } }, { done: true, output: OUT }],
    ["failed", { [OUT]: { passed: false } }, { done: false, missing: "lint.json says passed: false" }],
  ] as const)("proof: %s", (_name, files, expected) =>
    expect(shellKind.prove(LINT, { reports: reports(files), execution: undefined, state: undefined })).toEqual(
      expected,
    ),
  );
  it("spawns no agent; no gate", () => {
    expect(shellKind.spawn(LINT, spawnAt({ action: "spawn_agent", agent: "x" }))).toBeUndefined();
    expect(shellKind.gatedReport(LINT)).toBeUndefined();
  });
  it("its command", () => expect(shellKind.command(LINT)).toBe("npm run lint"));
});
