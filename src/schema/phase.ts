import * as z from "zod/mini";
import { PHASES, PHASE_STATUSES } from "../core/phases.js";
import { idString, isoDateTime, nonEmptyString, nonNegativeInt, parseWith, type ParseResult } from "./common.js";
import { ownerSchema } from "./execution.js";

export const phaseName = z.enum(PHASES);
export const phaseStatus = z.enum(PHASE_STATUSES);

export const completedPhaseSchema = z.looseObject({
  phase: phaseName,
  completed_at: isoDateTime,
  output: z.optional(z.nullable(z.string())),
});

export const userCheckpointSchema = z.looseObject({
  phase: phaseName,
  approved_at: isoDateTime,
});

/**
 * A multi-file change in flight (CONTRACT §3). dotagent writes it before touching the other
 * files and removes it after; finding it on disk means the change was cut off.
 */
export const pendingTransitionSchema = z.looseObject({
  type: nonEmptyString,
  started_at: isoDateTime,
  /** Files the change moves: roll forward when every `to` exists and no `from` does. */
  moves: z.optional(z.array(z.looseObject({ from: z.string(), to: z.string() }))),
  /** Files the change writes: roll forward when every one exists and is valid. */
  writes: z.optional(z.array(z.string())),
  task_id: z.optional(z.string()),
  phase: z.optional(phaseName),
});

export const reworkSchema = z.looseObject({
  round: z.int().check(z.minimum(1)),
  verification: z.string(),
  started_at: isoDateTime,
  closed_at: z.optional(z.nullable(isoDateTime)),
});

/**
 * A phase agent at work (pm, architect, roundtable, qa, reflector), recorded by the hook that saw
 * it spawned and removed when it stops: while its owner lives it is in flight, never spawned twice.
 */
export const agentRunSchema = z.looseObject({
  agent: idString,
  output: z.string(),
  design: z.optional(idString),
  owner: ownerSchema,
});

export const phaseStateSchema = z.looseObject({
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
  error: z.optional(z.nullable(z.string())),
});

export type PhaseState = z.infer<typeof phaseStateSchema>;
export type AgentRun = z.infer<typeof agentRunSchema>;
export type CompletedPhase = z.infer<typeof completedPhaseSchema>;
export type PendingTransition = z.infer<typeof pendingTransitionSchema>;

export function parsePhaseState(data: unknown): ParseResult<PhaseState> {
  return parseWith(phaseStateSchema, data);
}
