// `validate`: every check of SPEC §9. Reads without the state lock; leftover temp files are
// removed only if no other command holds the lock (it might be writing them).
import { existsSync } from "node:fs";
import type { StateSnapshot } from "../core/snapshot.js";
import { DEFAULT_STALE_AFTER_MS, validateState, type Problem } from "../core/validate.js";
import { acquireLock } from "../store/lock.js";
import { loadSnapshot } from "../store/session.js";
import { sweepTempFiles } from "../store/sweep.js";
import type { OpContext } from "./op-context.js";

/** `validate --json` (exit 3 in the CLI when `valid` is false). */
export interface ValidateResult {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
  removed_temp_files: string[];
}

export async function validateWorkflow(
  context: Pick<OpContext, "paths" | "now">,
  staleAfterMs: number | undefined,
): Promise<{ result: ValidateResult; snapshot: StateSnapshot }> {
  const now = context.now();
  const snapshot = await loadSnapshot(context.paths);
  const report = validateState(snapshot, now, { staleAfterMs: staleAfterMs ?? DEFAULT_STALE_AFTER_MS });
  let removed: string[] = [];
  if (snapshot.tempFiles.length > 0 && existsSync(context.paths.stateDir)) {
    try {
      const lock = acquireLock(context.paths.stateDir, { command: "validate", waitMs: 0 });
      try {
        removed = sweepTempFiles(context.paths.stateDir);
      } finally {
        lock.release();
      }
    } catch {
      // busy: the next command that takes the lock sweeps them
    }
  }
  return {
    result: {
      valid: report.errors.length === 0,
      errors: report.errors,
      warnings: report.warnings,
      removed_temp_files: removed,
    },
    snapshot,
  };
}
