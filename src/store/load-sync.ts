// loadSnapshot for library callers who want it synchronous: the zod schemas are imported up front
// instead of on demand (the CLI avoids that on its hot path; see quick-parse.ts).
import type { ReportRequest, StateSnapshot } from "../core/snapshot.js";
import { parseExecutionState } from "../schema/execution.js";
import { parsePhaseState } from "../schema/phase.js";
import type { ProjectPaths } from "./project.js";
import { completeSnapshot, withHandEdits } from "./session.js";
import { readStateFileSync } from "./state-files.js";
import { assertStatePaths } from "./state-paths.js";

export function loadSnapshotSync(paths: ProjectPaths, extra: readonly ReportRequest[] = []): StateSnapshot {
  assertStatePaths(paths);
  const phase = readStateFileSync(paths.root, paths.phaseFile, parsePhaseState);
  return withHandEdits(
    paths,
    completeSnapshot(paths, phase, readStateFileSync(paths.root, paths.executionFile, parseExecutionState), extra),
  );
}
