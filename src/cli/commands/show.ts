// `dotagent show [REPORT|STEP|TASK]`: the reports as Markdown for people and pull requests (src/ops/show.ts).
// Read-only; the renderers sit in the cold half (src/cli/cold.ts). Not in the hook's allow grammar: the model reads the JSON reports themselves.
import { usageError } from "../../core/errors.js";
import { loadCold } from "../load-cold.js";
import type { Command } from "../context.js";

export const command: Command = {
  summary:
    "the reports for people (requirements, designs, the pick, tasks, checks and steps, reflection): plain text on a terminal, Markdown in a file; never writes",
  usage: "dotagent show [REPORT|STEP|TASK] [--json]",
  options: {},
  examples: [
    "dotagent show                             every report, in workflow order, as one Markdown document",
    "dotagent show > docs/workflow.md          ...to commit beside the code, so the pull request reads it",
    "dotagent show ARCHITECTURE                a step's reports: the designs, the roundtable, the pick",
    "dotagent show demand                      one report by name (demand, designs, roundtable, final_design, plan, tasks, verification, reflection)",
    "dotagent show TESTS                       a check or shell step's command: passed, exit code, its output's last lines",
    "dotagent show task-002                    one task's report, by the task's id",
    "dotagent show designs/minimal.json        one report by its path under memory/reports/",
  ],
  async run(context) {
    const [target, ...rest] = context.args;
    if (rest.length > 0)
      throw usageError(`show takes one report, step or task, not "${rest[0]}" too; see \`dotagent show --help\``);
    // The renderers live in the cold half of the bundle: no other command pays to load them.
    const cold = await loadCold();
    // On a terminal the document is plain text (no `&amp;`, `\_` or `<sub>` to decode); piped or
    // redirected it stays Markdown for a file or a pull request, and --json always carries Markdown.
    const onTerminal = !context.out.json && process.stdout.isTTY === true;
    const style = onTerminal ? cold.terminalStyle(context.out.color.bold, context.out.color.dim) : undefined;
    const result = await cold.showReports(context, target, style);
    context.out.result(result, () => [result.markdown.trimEnd()]);
    return 0;
  },
};
