// Planning over corrupt or hand-edited state: the plan asks for the newest valid checkpoint (the
// state dotagent last kept) to offer going back to it first (SPEC §5, §15). The checkpoints (and
// the zod schemas that judge them) load only then: status on good state stays as cheap as before.
import {
  needsRecoveryPoint,
  planResume,
  type RecoveryPoint,
  type ResumeOptions,
  type ResumePlan,
} from "../core/plan-resume.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { ProjectPaths } from "../store/project.js";

export async function planWithRecovery(
  paths: ProjectPaths,
  snapshot: StateSnapshot,
  now: Date,
  options0: ResumeOptions,
): Promise<ResumePlan> {
  const options =
    options0.definitionChanged === undefined
      ? { ...options0, definitionChanged: await changedDefinition(paths, snapshot) }
      : options0;
  const plan = planResume(snapshot, now, options);
  if (!needsRecoveryPoint(plan, options)) return plan;
  return planResume(snapshot, now, { ...options, recovery: await findRecoveryPoint(paths, snapshot, now) });
}

/**
 * A pinned definition whose file says something else now (SPEC §20): the person decides, once per
 * version of the file (`definition_kept` records a "keep going" for that version). Read only for a
 * workflow that pinned one: develop's status and resume never load the definitions.
 */
async function changedDefinition(
  paths: ProjectPaths,
  snapshot: StateSnapshot,
): Promise<ResumeOptions["definitionChanged"]> {
  const pinned = snapshot.phase.kind === "ok" ? snapshot.phase.value.workflow : undefined;
  if (pinned === undefined) return null;
  const [{ workflowCatalog, WORKFLOWS_DIR }, { workflowHash }, { readEvents }, { authorityView }, { sealInstance }] =
    await Promise.all([
      import("../store/workflow-files.js"),
      import("../core/flow-of.js"),
      import("../store/events.js"),
      import("../store/authority.js"),
      import("../core/authority.js"),
    ]);
  const catalog = await workflowCatalog(paths.root);
  const source = catalog.all.find((d) => d.name === pinned.name)?.source;
  const resolved = catalog.resolve(pinned.name);
  // A definition removed, or one that no longer resolves, changes nothing: the pinned steps are walked.
  if (source === undefined || !resolved.ok) return null;
  const hash = workflowHash(resolved.flow);
  if (hash === pinned.hash) return null;
  // Kept by the person in this checkout only (a `definition_kept` that arrived by git is history: asked again).
  const state = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const kept = authorityView(paths, sealInstance(state), readEvents(paths.eventsFile)).some(
    (e) => e.type === "definition_kept" && e.hash === hash,
  );
  return kept
    ? null
    : {
        name: pinned.name,
        source: source === "built-in" ? `the built-in ${pinned.name}` : (source ?? WORKFLOWS_DIR),
        hash,
      };
}

/** The newest valid checkpoint of the live instance (phase.json corrupt: of the newest checkpoint's); null: none. */
export async function findRecoveryPoint(
  paths: ProjectPaths,
  snapshot: StateSnapshot,
  now: Date,
): Promise<RecoveryPoint | null> {
  const [{ checkpointOwner, newestCheckpoint }, { describeCheckpoint }, { isLastWrite }] = await Promise.all([
    import("../store/checkpoint-read.js"),
    import("./history.js"),
    import("../store/last-write.js"),
  ]);
  const owner = checkpointOwner(paths, snapshot.phase, now);
  if (owner === null) return null;
  const newest = newestCheckpoint(paths, owner.instance, now);
  if (newest === null) return null;
  const { meta } = newest;
  return {
    rev: meta.rev,
    at: meta.at,
    phase: meta.phase,
    phase_status: meta.phase_status,
    what: describeCheckpoint(meta),
    last_write: isLastWrite(paths.stateDir, meta.files),
  };
}
