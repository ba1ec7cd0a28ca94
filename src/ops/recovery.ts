// Planning over corrupt or hand-edited state: the plan asks for the newest valid checkpoint (the
// state dotagent last kept) to offer going back to it first (SPEC §5, §15). The checkpoints (and
// the zod schemas that judge them) load only then: status on good state stays as cheap as before.
import { needsRecoveryPoint, planResume, type RecoveryPoint, type ResumeOptions, type ResumePlan } from "../core/plan-resume.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { ProjectPaths } from "../store/project.js";

export async function planWithRecovery(paths: ProjectPaths, snapshot: StateSnapshot, now: Date, options: ResumeOptions): Promise<ResumePlan> {
  const plan = planResume(snapshot, now, options);
  if (!needsRecoveryPoint(plan, options)) return plan;
  return planResume(snapshot, now, { ...options, recovery: await findRecoveryPoint(paths, snapshot, now) });
}

/** The newest valid checkpoint of the live instance (phase.json corrupt: of the newest checkpoint's); null: none. */
export async function findRecoveryPoint(paths: ProjectPaths, snapshot: StateSnapshot, now: Date): Promise<RecoveryPoint | null> {
  const [{ checkpointOwner, newestCheckpoint }, { describeCheckpoint }, { isLastWrite }] = await Promise.all([import("../store/checkpoints.js"), import("./history.js"), import("../store/last-write.js")]);
  const owner = checkpointOwner(paths, snapshot.phase, now);
  if (owner === null) return null;
  const newest = newestCheckpoint(paths, owner.instance, now);
  if (newest === null) return null;
  const { meta } = newest;
  return { rev: meta.rev, at: meta.at, phase: meta.phase, phase_status: meta.phase_status, what: describeCheckpoint(meta), last_write: isLastWrite(paths.stateDir, meta.files) };
}
