// develop written once: DEVELOP is its built-in definition resolved, and equals, byte for byte, the
// flow written out by hand before (test/golden/develop-flow.json, taken from it), so its pinned
// steps and hash (what decides that a develop workflow pins nothing) are as they were.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEVELOP } from "./flow.js";
import { pinFlow, workflowHash } from "./flow-of.js";
import { pinnedSteps, resolveWorkflow } from "./resolve-workflow.js";
import { BUILTIN_WORKFLOWS } from "./workflow-defs.js";

const before = JSON.parse(readFileSync(new URL("../../test/golden/develop-flow.json", import.meta.url), "utf8")) as {
  flow: string;
  pinnedSteps: string;
  workflowHash: string;
};

describe("DEVELOP: the built-in definition, resolved", () => {
  it("the flow, its pinned steps and its hash are byte for byte the hand-written flow's", () => {
    // Since written once it also says how messages name VERIFICATION (`said`, which phase.json does not pin).
    const steps = DEVELOP.steps.map(({ said: _said, ...step }) => step);
    expect(DEVELOP.steps.filter((s) => s.said !== undefined).map((s) => [s.id, s.said])).toEqual([
      ["VERIFICATION", "verification"],
    ]);
    expect(JSON.stringify({ ...DEVELOP, steps })).toBe(before.flow);
    expect(JSON.stringify(pinnedSteps(DEVELOP))).toBe(before.pinnedSteps);
    expect(workflowHash(DEVELOP)).toBe(before.workflowHash);
  });

  it("is what resolving the built-in gives, and pins nothing", () => {
    const again = resolveWorkflow("develop", (n) =>
      n === "develop" ? { name: n, source: "built-in", def: BUILTIN_WORKFLOWS.develop! } : undefined,
    );
    expect(again.ok && again.flow).toEqual(DEVELOP);
    expect(again.ok && pinFlow(again.flow)).toBeUndefined();
  });
});
