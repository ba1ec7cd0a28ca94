import { EXIT } from "../../core/errors.js";
import { formatProblem } from "../../core/validate.js";
import { validateWorkflow } from "../../ops/validate.js";
import { resumeOptions } from "../resume-options.js";
import type { Command } from "../context.js";
import { count } from "../../core/words.js";

export const command: Command = {
  summary: "check the state files; exit 3 on errors",
  positionals: "none",
  usage: "dotagent validate [--stale-after 7d|never] [--json]",
  options: { "stale-after": { type: "string" } },
  examples: [
    "dotagent validate",
    "dotagent validate --json        {valid, errors:[{code,file,path,message}], warnings:[…], removed_temp_files}",
  ],
  async run(context) {
    const { result, snapshot } = await validateWorkflow(context, resumeOptions(context).staleAfterMs);
    const { valid, errors, warnings, removed_temp_files: removed } = result;
    context.out.result(result, () => {
      const c = context.out.color;
      const lines = [
        valid ? c.green("✓ state is valid") : c.red(`✗ ${errors.length} error${errors.length === 1 ? "" : "s"}`),
      ];
      for (const e of errors) lines.push(`  ${c.red("error:")} ${formatProblem(e)}`);
      for (const w of warnings) lines.push(`  ${c.yellow("warning:")} ${formatProblem(w)}`);
      if (removed.length > 0) lines.push(`  removed ${count(removed.length, "leftover temp file")}`);
      if (snapshot.phase.kind === "missing" && snapshot.execution.kind === "missing")
        lines.push("  (no workflow state here)");
      return lines;
    });
    return valid ? EXIT.ok : EXIT.invalid;
  },
};
