// `history [show REV]`: the checkpoints of the live workflow (src/store/checkpoints.ts), or with
// phase.json corrupt those of the newest checkpoint's (SPEC §15 Recovery). Read-only: takes no lock.
import { DotagentError, EXIT } from "../core/errors.js";
import type { CheckpointMeta } from "../store/checkpoints.js";
import { checkpointOwner, listCheckpoints, readCheckpoint } from "../store/checkpoint-read.js";
import { loadSnapshot } from "../store/session.js";
import type { OpContext } from "./op-context.js";

/** One checkpoint as `history --json` lists it: its meta with the event spelled out. */
export type CheckpointSummary = Pick<
  CheckpointMeta,
  "rev" | "at" | "workflow_id" | "phase" | "phase_status" | "completed_phases" | "kind"
> & {
  event: string;
  event_phase: string | null;
  task_id: string | null;
  what: string;
};

/** `history --json`. */
export interface HistoryResult {
  workflow_id: string | null;
  /** Whose checkpoints are listed: the live workflow's, or (phase.json corrupt) the newest checkpoint's; null: none. */
  listed_for: "live" | "newest_checkpoint" | null;
  checkpoints: CheckpointSummary[];
}

/** `history show REV --json`: the summary plus the state files the checkpoint holds. */
export type CheckpointResult = CheckpointSummary & { phase_state: unknown; execution: unknown };

export async function listHistory(context: Pick<OpContext, "paths" | "now">): Promise<HistoryResult> {
  const snapshot = await loadSnapshot(context.paths);
  const owner = checkpointOwner(context.paths, snapshot.phase, context.now());
  const checkpoints = listCheckpoints(context.paths, owner?.instance, context.now());
  return {
    workflow_id: owner?.workflow_id ?? null,
    listed_for: owner?.from ?? null,
    checkpoints: checkpoints.map((c) => summarizeCheckpoint(c.meta)),
  };
}

export async function showCheckpoint(
  context: Pick<OpContext, "paths" | "now">,
  rev: number,
): Promise<CheckpointResult> {
  const snapshot = await loadSnapshot(context.paths); // refuses a hostile state folder the same way as the listing
  const found = readCheckpoint(
    context.paths,
    rev,
    checkpointOwner(context.paths, snapshot.phase, context.now())?.instance,
    context.now(),
  );
  if ("missing" in found)
    throw new DotagentError(
      "no_checkpoint",
      `memory/state/.history: ${found.missing}; \`dotagent history\` lists the ones there are`,
      EXIT.refused,
    );
  return { ...summarizeCheckpoint(found.meta), phase_state: found.held.phase, execution: found.held.execution };
}

export function summarizeCheckpoint(c: CheckpointMeta): CheckpointSummary {
  return {
    rev: c.rev,
    at: c.at,
    workflow_id: c.workflow_id,
    phase: c.phase,
    phase_status: c.phase_status,
    completed_phases: c.completed_phases,
    kind: c.kind,
    event: c.event.type,
    event_phase: c.event.phase ?? null,
    task_id: c.event.task_id ?? null,
    what: describeCheckpoint(c),
  };
}

const WHAT: Record<string, (c: CheckpointMeta) => string> = {
  workflow_started: () => "workflow started",
  phase_approved: (c) => `${c.event.phase ?? "phase"} approved`,
  phase_completed: (c) => `${c.event.phase ?? "phase"} completed`,
  phase_rework: () => "verification failed: rework",
  rolled_back: () => "rolled back",
  hand_edit_kept: () => "hand edit kept",
  plan_recorded: () => "task plan recorded",
  task_completed: (c) => `task ${c.event.task_id ?? "?"} completed`,
};

export function describeCheckpoint(c: Pick<CheckpointMeta, "event">): string {
  return WHAT[c.event.type]?.(c as CheckpointMeta) ?? c.event.type;
}
