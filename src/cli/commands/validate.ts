import { EXIT } from "../../core/errors.js";
import { formatProblem, validateState } from "../../core/validate.js";
import { DEFAULT_STALE_AFTER_MS } from "../../core/validate.js";
import { acquireLock } from "../../store/lock.js";
import { sweepTempFiles } from "../../store/sweep.js";
import { loadSnapshot } from "../../store/session.js";
import { resumeOptions } from "../resume-options.js";
import type { Command } from "../context.js";
import { existsSync } from "node:fs";

export const command: Command = {
  summary: "check the state files; exit 3 on errors",
  usage: "dotagent validate [--stale-after 7d|never] [--json]",
  options: { "stale-after": { type: "string" } },
  examples: ["dotagent validate", "dotagent validate --json        {valid, errors:[{code,file,path,message}], warnings:[…], removed_temp_files}"],
  async run(context) {
    const now = context.now();
    const snapshot = await loadSnapshot(context.paths);
    const report = validateState(snapshot, now, { staleAfterMs: resumeOptions(context).staleAfterMs ?? DEFAULT_STALE_AFTER_MS });
    // Leftover temp files are removed only if no other command holds the lock (it might be writing them).
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
    const valid = report.errors.length === 0;
    context.out.result({ valid, errors: report.errors, warnings: report.warnings, removed_temp_files: removed }, () => {
      const c = context.out.color;
      const lines = [valid ? c.green("✓ state is valid") : c.red(`✗ ${report.errors.length} error${report.errors.length === 1 ? "" : "s"}`)];
      for (const e of report.errors) lines.push(`  ${c.red("error:")} ${formatProblem(e)}`);
      for (const w of report.warnings) lines.push(`  ${c.yellow("warning:")} ${formatProblem(w)}`);
      if (removed.length > 0) lines.push(`  removed ${removed.length} leftover temp file(s)`);
      if (snapshot.phase.kind === "missing" && snapshot.execution.kind === "missing") lines.push("  (no workflow state here)");
      return lines;
    });
    return valid ? EXIT.ok : EXIT.invalid;
  },
};
