// The flow a workflow walks: the definition pinned in its phase.json (`workflow`), or the
// built-in develop for a phase.json without one (every workflow dotagent wrote before
// definitions existed, and every develop workflow since). Readers call flowOf(state) instead of
// carrying a second value around; the pinned steps were checked when phase.json was parsed.
import { DEVELOP, type AgentStep, type Flow, type Step } from "./flow.js";
import { pinnedSteps, resolveWorkflow, type DefProblem } from "./resolve-workflow.js";
import { BUILTIN_WORKFLOWS, type StepDef } from "./workflow-defs.js";

export interface Pinned {
  readonly name: string;
  readonly hash: string;
  readonly description?: string | undefined;
  readonly steps: readonly StepDef[];
}

const resolved = new WeakMap<object, Flow>();

export function flowOf(state: { readonly workflow?: Pinned | undefined }): Flow {
  const pinned = state.workflow;
  if (pinned === undefined) return DEVELOP;
  let flow = resolved.get(pinned);
  if (flow === undefined) {
    const result = resolvePinned(pinned);
    // parsePhaseState refuses a phase.json whose pinned steps do not resolve: reaching this is a bug.
    if (!result.ok)
      throw new Error(
        `phase.json's workflow does not resolve: ${result.problems[0]!.path}: ${result.problems[0]!.message}`,
      );
    flow = result.flow;
    resolved.set(pinned, flow);
  }
  return flow;
}

/**
 * The flow for a reader that may find no readable phase.json: the one place a reader falls back,
 * so no reader carries a develop default of its own. A phase.json without `workflow` is develop
 * by SPEC (flowOf). No phase.json, or one that does not parse (`corrupt`): there is no workflow
 * whose definition could say otherwise, and every workflow dotagent wrote before definitions
 * existed was develop, so its rules are the ones that hold; the readers here are hooks and
 * guards, which must answer rather than fail, and status/resume report the damaged file itself.
 */
export function flowOrDefault(
  read:
    | { readonly kind: "ok"; readonly value: { readonly workflow?: Pinned | undefined } }
    | { readonly kind: "missing" | "corrupt" },
): Flow {
  return read.kind === "ok" ? flowOf(read.value) : DEVELOP;
}

/** Re-checks a pinned definition with every rule a definition file meets (a hand-edited phase.json is input too). */
export function resolvePinned(pinned: Pinned): { ok: true; flow: Flow } | { ok: false; problems: DefProblem[] } {
  const result = resolveWorkflow(pinned.name, (name) =>
    name === pinned.name
      ? { name, source: "memory/state/phase.json", def: { steps: pinned.steps, description: pinned.description } }
      : undefined,
  );
  return result.ok ? { ok: true, flow: withBuiltinGates(result.flow) } : result;
}

/**
 * phase.json pins no built-in's own fields (pinnedSteps: a gate's name, how messages name the
 * step): a step pinned exactly as a built-in wrote it (an `extends` of develop keeps its
 * REQUIREMENTS) gets them back, so a workflow reads the same before and after it was pinned.
 */
function withBuiltinGates(flow: Flow): Flow {
  const builtin = builtinOwnFields();
  const pinnedForm = pinnedSteps(flow);
  let changed = false;
  const steps = flow.steps.map((step, i) => {
    const own = builtin.get(sortedJson(pinnedForm[i]));
    if (own === undefined) return step;
    changed = true;
    return { ...step, ...own } as Step;
  });
  return changed ? { ...flow, steps } : flow;
}

type OwnFields = Pick<AgentStep, "named_gate" | "said">;
let ownFields: Map<string, OwnFields> | undefined;

/** The built-ins' steps that have fields of their own (named_gate, said), by the step's pinned form. */
function builtinOwnFields(): Map<string, OwnFields> {
  if (ownFields !== undefined) return ownFields;
  const found = new Map<string, OwnFields>();
  for (const name of Object.keys(BUILTIN_WORKFLOWS)) {
    const result = resolveWorkflow(name, (n) =>
      BUILTIN_WORKFLOWS[n] === undefined ? undefined : { name: n, source: "built-in", def: BUILTIN_WORKFLOWS[n] },
    );
    if (!result.ok) continue;
    const forms = pinnedSteps(result.flow);
    result.flow.steps.forEach((step, i) => {
      const own = {
        ...(step.kind === "agent" && step.named_gate !== undefined ? { named_gate: step.named_gate } : {}),
        ...(step.said !== undefined ? { said: step.said } : {}),
      };
      if (Object.keys(own).length > 0) found.set(sortedJson(forms[i]), own);
    });
  }
  ownFields = found;
  return found;
}

/** JSON with each object's keys sorted and undefined left out: equal steps, equal text, however parsed. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The pin a workflow started with `flow` records (none for develop: its phase.json stays as before). */
export function pinFlow(flow: Flow): Pinned | undefined {
  if (flow === DEVELOP || (flow.name === "develop" && workflowHash(flow) === workflowHash(DEVELOP))) return undefined;
  return {
    name: flow.name,
    hash: workflowHash(flow),
    ...(flow.description ? { description: flow.description } : {}),
    steps: pinnedSteps(flow),
  };
}

/** 16 hex digits of the SHA-256 of the resolved steps: equal definitions, equal hashes. */
export function workflowHash(flow: Flow): string {
  const json = JSON.stringify(pinnedSteps(flow));
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(json).digest("hex").slice(0, 16);
}
