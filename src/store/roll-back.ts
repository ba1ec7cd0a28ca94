// Rollback for commands and libraries: read the state, plan (src/core/rollback.ts), and carry the
// plan out through the journal (rollback-journal.ts). The caller holds the state lock for
// `rollBack`; `prepareRollback` only reads (the CLI uses it to ask the question first).
import { PHASES } from "../core/phases.js";
import { stepIds } from "../core/flow.js";
import { flowOrDefault } from "../core/flow-of.js";
import { DotagentError, EXIT } from "../core/errors.js";
import type { ErrorCode } from "../core/error-codes.js";
import {
  parseRollbackTarget,
  planRollback,
  revisionProblem,
  type RollbackPlan,
  type RollbackTarget,
} from "../core/rollback.js";
import type { StateSnapshot } from "../core/snapshot.js";
import { validateState } from "../core/validate.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { checkpointOwner, readCheckpoint } from "./checkpoint-read.js";
import {
  commitRollback,
  finishRollback,
  listReportFiles,
  rollbackPending,
  type Archiver,
  type RollbackJournal,
} from "./rollback-journal.js";
import type { ProjectPaths } from "./project.js";

export interface PreparedRollback {
  plan: RollbackPlan;
  journal: RollbackJournal;
}

function refused(code: ErrorCode, message: string): DotagentError {
  return new DotagentError(code, message, EXIT.refused);
}

function parseTarget(to: string, phases: readonly string[]) {
  const parsed = parseRollbackTarget(to, phases);
  if (parsed === null)
    throw new DotagentError(
      "usage",
      `--to takes ${phases.join() === PHASES.join() ? "a phase (REQUIREMENTS … REFLECTION)" : `a step (${phases.length <= 8 ? phases.join(", ") : `${phases[0]} … ${phases.at(-1)}`})`} or a checkpoint revision; ${revisionProblem(JSON.stringify(to.length > 40 ? `${to.slice(0, 40)}…` : to))}`,
      EXIT.usage,
    );
  return parsed;
}

/** Checkpoint `rev` of `instance`, read, verified and judged here; a refusal otherwise. */
function checkpointTarget(
  paths: ProjectPaths,
  rev: number,
  instance: string | undefined,
  now: Date,
): Extract<RollbackTarget, { kind: "checkpoint" }> {
  const found = readCheckpoint(paths, rev, instance, now);
  if ("missing" in found) {
    if (found.why === "other_instance")
      throw refused(
        "rollback_other_workflow",
        `memory/state/.history: ${found.missing}; only the live workflow's checkpoints (\`dotagent history\`) can be returned to`,
      );
    if (found.why === "damaged")
      throw refused(
        "checkpoint_invalid",
        `memory/state/.history: ${found.missing}; it is never restored: pick another from \`dotagent history\``,
      );
    throw refused(
      "no_checkpoint",
      `memory/state/.history: ${found.missing}; \`dotagent history\` lists the ones there are`,
    );
  }
  return { kind: "checkpoint", rev, phase: found.phase, execution: found.execution };
}

/** Plans a rollback of the state in `snapshot` to `to` (a phase or a revision); throws a refusal. */
export function prepareRollback(paths: ProjectPaths, snapshot: StateSnapshot, to: string, now: Date): PreparedRollback {
  // The steps of the workflow here (flowOrDefault: its pinned definition's, else develop's phases).
  const parsed = parseTarget(to, stepIds(flowOrDefault(snapshot.phase)));
  const errors = validateState(snapshot, now, { staleAfterMs: Number.POSITIVE_INFINITY }).errors;
  // Corrupt state (phase.json or execution.json unreadable, or hand-edited into nonsense) goes
  // back to a checkpoint all the same: that is the way out (SPEC §15 Recovery). The live files
  // go into the rollback's archive, as always.
  const recovering = parsed.kind === "rev" && errors.length > 0;
  const owner = checkpointOwner(paths, snapshot.phase, now);
  if (owner === null)
    throw refused(
      "no_workflow",
      "no workflow here (memory/state/phase.json does not exist); `dotagent resume` says what to do",
    );
  if (snapshot.phase.kind !== "ok" && !recovering)
    throw refused(
      "no_workflow",
      "no workflow here (memory/state/phase.json is corrupt); `dotagent history` lists the checkpoints to go back to with `dotagent rollback --to REV`, `dotagent resume` says what to do",
    );
  const target = parsed.kind === "phase" ? parsed : checkpointTarget(paths, parsed.rev, owner.instance, now);
  const live = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  // Without a readable phase.json the checkpoint's own state stands for the live one.
  const before: PhaseState = live ?? (target as Extract<RollbackTarget, { kind: "checkpoint" }>).phase;
  const execution: ExecutionState | undefined = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  if (!recovering) {
    if (before.pending_transition || !before.interruption_safe)
      throw refused(
        "transition_pending",
        "a change was cut off (phase.json has interruption_safe: false); run `dotagent resume` first, then roll back",
      );
    if (errors.length > 0)
      throw new DotagentError(
        "state_invalid",
        `the state is not valid (${errors[0]?.file}: ${errors[0]?.message}); run \`dotagent validate\` or \`dotagent resume\` first, or go back to a checkpoint (\`dotagent history\`, \`dotagent rollback --to REV\`)`,
        EXIT.invalid,
      );
  }
  const reports = listReportFiles(paths);
  const first = reports.unarchivable[0];
  if (first !== undefined) {
    throw refused(
      "not_archivable",
      `${first} cannot be archived (a link, a special file or over 64 MiB)${reports.unarchivable.length > 1 ? ` (and ${reports.unarchivable.length - 1} more)` : ""}, and a rollback keeps what it moves only in an archive; nothing was changed. for the person: move it out of memory/reports, then run the command again`,
    );
  }
  const result = planRollback(before, execution, reports.files, target);
  if (!result.ok) throw refused(result.code, result.message);
  const plan: RollbackPlan = recovering
    ? {
        ...result.plan,
        from: { phase: before.current_phase, phase_status: live === undefined ? "corrupt" : before.phase_status },
      }
    : result.plan;
  const at = now.toISOString();
  const journal: RollbackJournal = {
    format: 1,
    started_at: at,
    workflow_id: before.workflow_id,
    reason: `rollback to ${plan.describe} (from ${recovering ? "corrupt state" : `${plan.from.phase} ${plan.from.phase_status}`})`,
    moves: plan.moves,
    phase: { ...plan.phase, schema_version: 1, revision: (before.revision ?? 0) + 1, last_updated: at },
    execution:
      plan.execution === null
        ? null
        : {
            ...plan.execution,
            revision: Math.max(execution?.revision ?? 0, plan.execution.revision ?? 0) + 1,
            updated_at: at,
            interruption_safe: true,
          },
    event: {
      type: "rolled_back",
      to: plan.describe,
      phase: plan.to.phase,
      from_phase: plan.from.phase,
      moved: plan.moves.length,
      ...(recovering ? { from_corrupt: true } : {}),
    },
  };
  return { plan, journal };
}

/** Carries out a prepared rollback; the caller holds the lock. Returns the archive holding what moved. */
export async function rollBack(
  paths: ProjectPaths,
  prepared: PreparedRollback,
  archiver: Archiver,
  now: Date,
): Promise<string | null> {
  if (rollbackPending(paths))
    throw refused(
      "rollback_pending",
      "another rollback is not finished (memory/state/.rollback exists); run `dotagent resume` to finish it",
    );
  commitRollback(paths, prepared.journal);
  return (await finishRollback(paths, archiver, now)).archive;
}
