// Workflow definitions as a person writes them (SPEC §20): `.dotagent/workflows/<name>.json`, a
// full list of steps or an `extends` of another definition with edits. The built-ins are written
// in the same format, so `develop` is a definition like any other. Pure: the store reads files.
import type { NamedGate, StepCondition, StepKind } from "./flow.js";

/** A step as written: reports are names under memory/reports/ ("demand.json"). */
export interface StepDef {
  readonly id: string;
  readonly kind: StepKind;
  readonly title?: string | undefined;
  readonly agent?: string | undefined;
  readonly reducer?: string | undefined;
  readonly designs?: readonly { readonly name: string; readonly angle: string }[] | undefined;
  readonly report?: string | readonly string[] | undefined;
  readonly gate?: "approve" | "choose" | undefined;
  readonly run?: string | undefined;
  readonly rework?: string | undefined;
  readonly max_rounds?: number | undefined;
  readonly retries?: number | undefined;
  readonly timeout?: number | undefined;
  readonly when?: StepCondition | undefined;
  /** How messages name the step (flow.ts StepBase.said); a definition file cannot set it. */
  readonly said?: string | undefined;
  /** An agent step's approval as a built-in names it (flow.ts NamedGate); a definition file cannot set it. */
  readonly named_gate?: NamedGate | undefined;
}

export interface InsertDef {
  readonly after?: string | undefined;
  readonly before?: string | undefined;
  readonly steps: readonly StepDef[];
}

export interface WorkflowDef {
  readonly description?: string | undefined;
  readonly extends?: string | undefined;
  readonly steps?: readonly StepDef[] | undefined;
  readonly insert?: readonly InsertDef[] | undefined;
  readonly replace?: readonly StepDef[] | undefined;
  readonly remove?: readonly string[] | undefined;
}

/** A definition and where it came from: "built-in" or a project-relative file. */
export interface SourcedDef {
  readonly name: string;
  readonly source: string;
  readonly def: WorkflowDef;
}

export const BUILTIN_WORKFLOWS: Readonly<Record<string, WorkflowDef>> = {
  develop: {
    description: "requirements → a design the person picks → tasks in worktrees → verification → reflection",
    steps: [
      {
        id: "REQUIREMENTS",
        kind: "agent",
        agent: "pm",
        report: "demand.json",
        gate: "approve",
        named_gate: { gate: "approve_requirements", words: "the requirements", shows: "requirements" },
      },
      { id: "ARCHITECTURE", kind: "choose", agent: "architect", reducer: "roundtable" },
      { id: "IMPLEMENTATION", kind: "tasks", agent: "executor" },
      {
        id: "VERIFICATION",
        kind: "check",
        agent: "qa",
        report: "verification.json",
        rework: "IMPLEMENTATION",
        max_rounds: 5,
        said: "verification",
      },
      { id: "REFLECTION", kind: "agent", agent: "reflector", report: ["reflection.json", "reflection.md"] },
    ],
  },
  fix: {
    description: "reproduce the bug with a failing test → fix it as tasks → the project's tests → reflection",
    steps: [
      {
        id: "REPRODUCE",
        kind: "agent",
        agent: "reproducer",
        report: "reproduction.json",
        gate: "approve",
        title: "a failing test that shows the bug",
      },
      { id: "FIX", kind: "tasks", agent: "executor", title: "the fix, as tasks in worktrees" },
      {
        id: "TEST",
        kind: "check",
        agent: "qa",
        report: "verification.json",
        rework: "FIX",
        max_rounds: 3,
        title: "the reproduction passes and nothing else broke",
      },
      { id: "REFLECTION", kind: "agent", agent: "reflector", report: ["reflection.json", "reflection.md"] },
    ],
  },
};

/** The agents dotagent ships (agents/<name>.md): a definition may name these without a file of its own. */
export const BUILTIN_AGENTS = ["pm", "architect", "roundtable", "executor", "qa", "reflector", "reproducer"] as const;
