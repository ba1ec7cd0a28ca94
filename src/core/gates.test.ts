// Gates as data: what each step kind's gate says (its name, what the person does and reads), the
// names develop's definition gives (and only a built-in may), carried by extends and kept when the
// definition is pinned in phase.json, which itself stays as it was.
import { describe, expect, it } from "vitest";
import { DEVELOP, stepOf, type Flow } from "./flow.js";
import { approvalAt, approvalsOf, type Approval } from "./gates.js";
import { pinFlow, resolvePinned, workflowHash } from "./flow-of.js";
import { pinnedSteps, resolveWorkflow } from "./resolve-workflow.js";
import { BUILTIN_WORKFLOWS, type SourcedDef, type WorkflowDef } from "./workflow-defs.js";
import { workflowDefSchema } from "../schema/workflow.js";

function resolve(name: string, project: Record<string, WorkflowDef> = {}): Flow {
  const lookup = (n: string): SourcedDef | undefined =>
    n in BUILTIN_WORKFLOWS
      ? { name: n, source: "built-in", def: BUILTIN_WORKFLOWS[n]! }
      : n in project
        ? { name: n, source: `.dotagent/workflows/${n}.json`, def: project[n]! }
        : undefined;
  const result = resolveWorkflow(name, lookup);
  if (!result.ok) throw new Error(result.problems[0]!.message);
  return result.flow;
}

const gatesOf = (flow: Flow) => flow.steps.flatMap((s) => approvalsOf(s).map((a) => [a.step, a.gate, a.does]));
const at = (flow: Flow, id: string) => approvalsOf(stepOf(flow, id)!);

const NOTES = { id: "NOTES", kind: "agent" as const, agent: "reflector", report: "notes.md", gate: "approve" as const };
const REVIEW: WorkflowDef = { extends: "develop", insert: [{ after: "REFLECTION", steps: [NOTES] }] };

describe("each kind's gates", () => {
  it("develop: the demand's approval, the pick and the final design's approval", () =>
    expect(gatesOf(DEVELOP)).toEqual([
      ["REQUIREMENTS", "approve_requirements", "approve"],
      ["ARCHITECTURE", "pick_design", "pick"],
      ["ARCHITECTURE", "approve_design", "approve"],
    ]));

  it.each<[string, string, Partial<Approval>]>([
    [
      "develop's demand: named by its definition, said as the person reads it",
      "REQUIREMENTS",
      { report: "memory/reports/demand.json", words: "the requirements", shows: "requirements", saysStep: false },
    ],
    [
      "a pick: the comparison to read, every architect revises on a change",
      "ARCHITECTURE",
      { does: "pick", report: "memory/reports/roundtable.json", shows: "designs", takesChanges: true },
    ],
  ])("%s", (_name, id, expected) => expect(at(DEVELOP, id)[0]).toMatchObject(expected));

  it("a chosen design takes no changes, and says what to do instead", () =>
    expect(at(DEVELOP, "ARCHITECTURE")[1]).toMatchObject({
      gate: "approve_design",
      takesChanges: false,
      instead: "its design is chosen: approve it, or go back with dotagent rollback",
    }));

  it("a definition's agent step with an approve gate: approve_report, which says its step", () =>
    expect(at(resolve("review", { review: REVIEW }), "NOTES")).toEqual([
      {
        gate: "approve_report",
        does: "approve",
        step: "NOTES",
        report: "memory/reports/notes.md",
        words: "NOTES's report",
        shows: "report",
        takesChanges: true,
        saysStep: true,
      },
    ]));

  it("steps without a gate have none; fix's REPRODUCE is approve_report (no built-in name)", () => {
    expect(at(DEVELOP, "VERIFICATION")).toEqual([]);
    expect(at(DEVELOP, "REFLECTION")).toEqual([]);
    expect(at(resolve("fix"), "REPRODUCE").map((a) => a.gate)).toEqual(["approve_report"]);
  });

  it("a step named REQUIREMENTS in a project's own steps is no develop step: approve_report", () => {
    const own = resolve("own", { own: { steps: [{ ...NOTES, id: "REQUIREMENTS" }] } });
    expect(at(own, "REQUIREMENTS").map((a) => a.gate)).toEqual(["approve_report"]);
  });
});

describe("approvalAt: the plan's next read back as its gate", () => {
  const review = resolve("review", { review: REVIEW });
  it.each<[string, Flow, object, Partial<Approval> | undefined]>([
    ["develop's demand by its name alone", DEVELOP, { gate: "approve_requirements" }, { step: "REQUIREMENTS" }],
    ["the pick", DEVELOP, { gate: "pick_design" }, { does: "pick", step: "ARCHITECTURE" }],
    [
      "approve_report at the step it says, the report next.output names",
      review,
      { gate: "approve_report", step: "NOTES", output: "memory/reports/x.md" },
      { step: "NOTES", report: "memory/reports/x.md" },
    ],
    ["a gate this flow does not have", DEVELOP, { gate: "approve_report", step: "NOTES" }, undefined],
    ["no gate", DEVELOP, {}, undefined],
  ])("%s", (_name, flow, next, expected) =>
    expected === undefined
      ? expect(approvalAt(flow, next)).toBeUndefined()
      : expect(approvalAt(flow, next)).toMatchObject(expected),
  );
});

describe("develop's gate name: only a built-in names it, extends carries it, phase.json does not hold it", () => {
  it("a definition file cannot write named_gate (the schema refuses the key)", () => {
    const def = { steps: [{ ...NOTES, named_gate: { gate: "approve_requirements", words: "x", shows: "report" } }] };
    expect(workflowDefSchema.safeParse(def).success).toBe(false);
  });

  it("nor can a definition that reaches the resolver another way", () => {
    const result = resolveWorkflow("own", (n) =>
      n === "own"
        ? {
            name: n,
            source: ".dotagent/workflows/own.json",
            def: {
              steps: [{ ...NOTES, named_gate: { gate: "approve_requirements", words: "x", shows: "requirements" } }],
            },
          }
        : undefined,
    );
    expect(result.ok ? [] : result.problems.map((p) => [p.written_path, p.message])).toEqual([
      ["steps[0].named_gate", "only a built-in agent step names its gate; remove `named_gate`"],
    ]);
  });

  it("how messages name a step (`said`) is a built-in's too", () => {
    const result = resolveWorkflow("own", (n) =>
      n === "own"
        ? { name: n, source: ".dotagent/workflows/own.json", def: { steps: [{ ...NOTES, said: "notes" }] } }
        : undefined,
    );
    expect(result.ok ? [] : result.problems.map((p) => p.written_path)).toEqual(["steps[0].said"]);
    expect(stepOf(resolve("review", { review: REVIEW }), "VERIFICATION")!.said).toBe("verification");
  });

  it("extends carries it with the step; a replaced REQUIREMENTS is the project's own step", () => {
    expect(at(resolve("review", { review: REVIEW }), "REQUIREMENTS").map((a) => a.gate)).toEqual([
      "approve_requirements",
    ]);
    const replaced = resolve("mine", {
      mine: { extends: "develop", replace: [{ ...NOTES, id: "REQUIREMENTS", report: "brief.json" }] },
    });
    expect(at(replaced, "REQUIREMENTS").map((a) => a.gate)).toEqual(["approve_report"]);
  });

  it("phase.json's pinned steps leave it out (format and hash as before) and get it back when read", () => {
    const review = resolve("review", { review: REVIEW });
    const pin = pinFlow(review)!;
    expect(JSON.stringify(pin.steps)).not.toContain("named_gate");
    expect(pin.steps[0]).toEqual({
      id: "REQUIREMENTS",
      kind: "agent",
      agent: "pm",
      report: "demand.json",
      gate: "approve",
    });
    const read = resolvePinned(JSON.parse(JSON.stringify(pin)));
    expect(read.ok && read.flow).toEqual(review);
    expect(read.ok && workflowHash(read.flow)).toBe(pin.hash);
  });

  it("develop's pinned form has no named_gate", () =>
    expect(JSON.stringify(pinnedSteps(DEVELOP))).not.toContain("named_gate"));
});
