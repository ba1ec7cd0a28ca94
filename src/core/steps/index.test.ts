import { describe, expect, it } from "vitest";
import { DEVELOP, STEP_KINDS } from "../flow.js";
import { agentKind } from "./agent.js";
import { chooseKind } from "./choose.js";
import { tasksKind } from "./tasks.js";
import { checkKind } from "./check.js";
import { kindOf, STEP_MODULES, type StepModules } from "./index.js";

describe("the step kinds' registry", () => {
  it("a module for every kind, each under its own kind", () => {
    expect(Object.keys(STEP_MODULES).sort()).toEqual([...STEP_KINDS].sort());
    for (const kind of STEP_KINDS) expect(STEP_MODULES[kind].kind).toBe(kind);
  });
  it("a step is dispatched to its kind's module", () =>
    expect(DEVELOP.steps.map((s) => kindOf(s).kind)).toEqual(["agent", "choose", "tasks", "check", "agent"]));
  it("a kind without a module does not type-check", () => {
    // @ts-expect-error shell has no module here: `tsc --noEmit` fails if this ever compiles
    const partial: StepModules = { agent: agentKind, choose: chooseKind, tasks: tasksKind, check: checkKind };
    expect(Object.keys(partial)).not.toContain("shell");
  });
});
