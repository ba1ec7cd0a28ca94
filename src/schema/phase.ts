import * as z from "zod/mini";
import { PHASES, PHASE_STATUSES } from "../core/phases.js";
import { resolvePinned } from "../core/flow-of.js";
import { pinnedWorkflowSchema } from "./workflow.js";
import { idString, isoDateTime, nonEmptyString, nonNegativeInt, parseWith, type ParseResult } from "./common.js";
import { ownerSchema } from "./execution.js";

export const phaseStatus = z.enum(PHASE_STATUSES);

/**
 * phase.json's schema for a workflow whose steps are `ids`: develop's five phases, or the steps
 * of the definition it pinned (`workflow`). Built once per list of ids.
 */
function buildPhaseStateSchema(ids: readonly [string, ...string[]]) {
  const phaseName = z.enum(ids);
  const completedPhaseSchema = z.looseObject({
    phase: phaseName,
    completed_at: isoDateTime,
    output: z.optional(z.nullable(z.string())),
    /** The step's `when` did not hold: it was passed over, not done. */
    skipped: z.optional(z.boolean()),
  });

  const userCheckpointSchema = z.looseObject({
    phase: phaseName,
    approved_at: isoDateTime,
  });

  /**
   * A multi-file change in flight (CONTRACT §3). dotagent writes it before touching the other
   * files and removes it after; finding it on disk means the change was cut off.
   */
  const pendingTransitionSchema = z.looseObject({
    type: nonEmptyString,
    started_at: isoDateTime,
    /** Files the change moves: roll forward when every `to` exists and no `from` does. */
    moves: z.optional(z.array(z.looseObject({ from: z.string(), to: z.string() }))),
    /** Files the change writes: roll forward when every one exists and is valid. */
    writes: z.optional(z.array(z.string())),
    task_id: z.optional(z.string()),
    phase: z.optional(phaseName),
  });

  const reworkSchema = z.looseObject({
    round: z.int().check(z.minimum(1)),
    verification: z.string(),
    started_at: isoDateTime,
    closed_at: z.optional(z.nullable(isoDateTime)),
    /** The check step that sent the work back and the step it went back to (a pinned workflow's; develop's record has neither). */
    step: z.optional(z.string()),
    to: z.optional(z.string()),
  });

  /**
   * A phase agent at work (pm, architect, roundtable, qa, reflector), recorded by the hook that saw
   * it spawned and removed when it stops: while its owner lives it is in flight, never spawned twice.
   */
  const agentRunSchema = z.looseObject({
    agent: idString,
    output: z.string(),
    design: z.optional(idString),
    owner: ownerSchema,
  });

  const phaseStateSchema = z.looseObject({
    workflow_id: nonEmptyString,
    started_at: isoDateTime,
    last_updated: isoDateTime,
    current_phase: phaseName,
    phase_status: phaseStatus,
    completed_phases: z.array(completedPhaseSchema),
    user_checkpoints: z.array(userCheckpointSchema),
    interruption_safe: z.boolean(),
    schema_version: z.optional(z.literal(1)),
    revision: z.optional(nonNegativeInt),
    request: z.optional(z.nullable(z.string())),
    inputs_hash: z.optional(z.nullable(z.string().check(z.regex(/^[0-9a-f]{16}$/, "16 lowercase hex characters")))),
    /** Set by init: this run of the workflow, so a reused workflow_id never inherits an earlier run's checkpoints. */
    instance_id: z.optional(z.string().check(z.regex(/^[0-9a-f]{16}$/, "16 lowercase hex characters"))),
    pending_transition: z.optional(z.nullable(pendingTransitionSchema)),
    rework: z.optional(z.nullable(reworkSchema)),
    /** The designs ARCHITECTURE asked for (`phase start ARCHITECTURE --designs a,b`): designs/<name>.json each. */
    designs_requested: z.optional(z.array(idString)),
    /** Phase agents at work (SPEC §5 agents in flight). */
    agents: z.optional(z.array(agentRunSchema)),
    /**
     * The phase agents' reports whose agent a hook recorded at work (SPEC §11 "A report counts for
     * its agent"): once present, a pm, architect, roundtable, qa or reflector report not listed does not count.
     */
    agent_reports: z.optional(z.array(z.string())),
    /** The definition this workflow started with (SPEC §20); none: the built-in develop. */
    workflow: z.optional(pinnedWorkflowSchema),
    error: z.optional(z.nullable(z.string())),
  });
  return phaseStateSchema;
}

const schemas = new Map<string, ReturnType<typeof buildPhaseStateSchema>>();
function phaseStateSchemaFor(ids: readonly string[]): ReturnType<typeof buildPhaseStateSchema> {
  const key = ids.join(",");
  let schema = schemas.get(key);
  if (schema === undefined) {
    schema = buildPhaseStateSchema(ids as [string, ...string[]]);
    schemas.set(key, schema);
  }
  return schema;
}

/** develop's phase.json schema (the JSON Schema export and the library's default). */
export const phaseStateSchema = phaseStateSchemaFor(PHASES);

export type PhaseState = z.infer<typeof phaseStateSchema>;
export type CompletedPhase = PhaseState["completed_phases"][number];
export type AgentRun = NonNullable<PhaseState["agents"]>[number];
export type PendingTransition = NonNullable<PhaseState["pending_transition"]>;

/**
 * Parses phase.json: its pinned definition first (`workflow`, checked by every rule a definition
 * file meets), then the rest against that definition's step ids (develop's without one).
 */
export function parsePhaseState(data: unknown): ParseResult<PhaseState> {
  const raw = data !== null && typeof data === "object" ? (data as { workflow?: unknown }).workflow : undefined;
  if (raw === undefined) return parseWith(phaseStateSchema, data);
  const pinned = parseWith(pinnedWorkflowSchema, raw);
  if (!pinned.ok)
    return {
      ok: false,
      problems: pinned.problems.map((p) => ({ ...p, path: p.path === "" ? "workflow" : `workflow.${p.path}` })),
    };
  const resolved = resolvePinned(pinned.value);
  if (!resolved.ok)
    return {
      ok: false,
      problems: resolved.problems.map((p) => ({
        path: p.path === "" ? "workflow" : `workflow.${p.path}`,
        message: p.message,
      })),
    };
  return parseWith(phaseStateSchemaFor(resolved.flow.steps.map((st) => st.id)), data);
}
