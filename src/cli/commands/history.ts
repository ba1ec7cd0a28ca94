// `dotagent history [show REV]`: the checkpoints of the live workflow (src/store/checkpoints.ts).
// Read-only: takes no lock.
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { listCheckpoints, readCheckpoint, type CheckpointMeta } from "../../store/checkpoints.js";
import { loadSnapshot } from "../../store/session.js";
import type { Command } from "../context.js";

export const command: Command = {
  summary: "list the checkpoints rollback can return to | history show REV",
  usage: "dotagent history [--json]  |  dotagent history show REV [--json]",
  options: {},
  examples: ["dotagent history                 revision, time, phase and what happened", "dotagent history show 12 --json   the state files held by checkpoint 12"],
  async run(context) {
    const [action, revText, ...rest] = context.args;
    if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
    const snapshot = await loadSnapshot(context.paths);
    const workflowId = snapshot.phase.kind === "ok" ? snapshot.phase.value.workflow_id : undefined;
    if (action === undefined) {
      const checkpoints = listCheckpoints(context.paths, workflowId);
      context.out.result({ workflow_id: workflowId ?? null, checkpoints: checkpoints.map(summary) }, () =>
        checkpoints.length === 0
          ? ["No checkpoints yet."]
          : [`  REV  TIME                  ${"PHASE".padEnd(24)} WHAT`, ...checkpoints.map((c) => `${String(c.rev).padStart(5)}  ${c.at.replace(/\.\d{3}Z$/, "Z")}  ${`${c.phase} ${c.phase_status}`.padEnd(24)} ${what(c)}`), "Return to one: dotagent rollback --to REV (or --to PHASE)"],
      );
      return EXIT.ok;
    }
    if (action !== "show") throw usageError(`history takes no argument or \`show REV\`, not "${action}"`);
    const rev = Number(revText);
    if (revText === undefined || !Number.isInteger(rev) || rev < 1) throw usageError(`history show needs a revision number from \`dotagent history\`, not "${revText ?? ""}"`);
    const found = readCheckpoint(context.paths, rev);
    if ("missing" in found) throw new DotagentError("no_checkpoint", `memory/state/.history: ${found.missing}; \`dotagent history\` lists the ones there are`, EXIT.refused);
    const phase = found.phase as { completed_phases?: Array<{ phase: string }>; user_checkpoints?: Array<{ phase: string }> };
    const tasks = (found.execution as { tasks?: Array<{ id: string; status: string }> } | null)?.tasks ?? [];
    context.out.result({ ...summary(found.meta), phase_state: found.phase, execution: found.execution }, () => [
      `Checkpoint ${rev} of ${found.meta.workflow_id}, ${found.meta.at}: ${what(found.meta)}`,
      `Phase: ${found.meta.phase} (${found.meta.phase_status})`,
      `Completed: ${(phase.completed_phases ?? []).map((c) => c.phase).join(", ") || "none"}`,
      `Approved: ${(phase.user_checkpoints ?? []).map((c) => c.phase).join(", ") || "none"}`,
      `Tasks: ${tasks.length === 0 ? "none" : tasks.map((t) => `${t.id} ${t.status}`).join(", ")}`,
      `Return to it: dotagent rollback --to ${rev}`,
    ]);
    return EXIT.ok;
  },
};

function summary(c: CheckpointMeta): Record<string, unknown> {
  return { rev: c.rev, at: c.at, workflow_id: c.workflow_id, phase: c.phase, phase_status: c.phase_status, completed_phases: c.completed_phases, kind: c.kind, event: c.event.type, event_phase: c.event.phase ?? null, task_id: c.event.task_id ?? null, what: what(c) };
}

const WHAT: Record<string, (c: CheckpointMeta) => string> = {
  workflow_started: () => "workflow started",
  phase_approved: (c) => `${c.event.phase ?? "phase"} approved`,
  phase_completed: (c) => `${c.event.phase ?? "phase"} completed`,
  phase_rework: () => "verification failed: rework",
  rolled_back: () => "rolled back",
  task_completed: (c) => `task ${c.event.task_id ?? "?"} completed`,
};

function what(c: CheckpointMeta): string {
  return WHAT[c.event.type]?.(c) ?? c.event.type;
}
