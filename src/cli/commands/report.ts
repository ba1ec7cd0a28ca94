// `dotagent report [--out PATH]`: one self-contained HTML page of the run (src/ops/run-report.ts).
// For people: not in the hook's allow grammar, and it prints one line (after a kill not yet
// resumed, status's first line above it and its Next line below).
import { usageError } from "../../core/errors.js";
import { loadCold } from "../load-cold.js";
import { opContext, stringOption, type Command } from "../context.js";
import { howToStart, personNextOf, personReading } from "../person-next.js";
import { readStatus } from "../../ops/status.js";
import { nextLine } from "../render-plan.js";

export const command: Command = {
  summary: "write one self-contained HTML page of the run: timeline, verification, task graph, interruptions, cost",
  usage: "dotagent report [--out PATH] [--json]",
  options: { out: { type: "string", short: "o" } },
  examples: [
    "dotagent report                         writes memory/report.html (open it in a browser; no network needed)",
    "dotagent report --out run.html          anywhere else",
  ],
  async run(context) {
    if (context.args.length > 0)
      throw usageError(`report takes no argument, not "${context.args[0]}"; give the file with --out`);
    const out = stringOption(context, "out");
    if (out === "") throw usageError("--out needs a file path");
    const driver = personReading(context);
    const cold = await loadCold();
    // status's reading of the same state: what a kill left cut off, and what to type next. State
    // status cannot plan from (corrupt) still gets its page, as before: without that reading.
    const status = await readStatus(opContext(context), undefined).catch(() => undefined);
    const result = await cold.writeRunReport(
      context,
      out,
      process.cwd(),
      driver === null ? undefined : howToStart(driver),
      status,
    );
    context.out.result(result, () => {
      if (status === undefined) return cold.runReportLines(result);
      const { plan, flow } = status;
      const next =
        driver === null
          ? nextLine(plan, context.out.color, flow)
          : personNextOf(plan.next, status.approvedNeeds, driver, flow, status.liveRun, status.runApproves);
      return cold.runReportLines(result, next);
    });
    return 0;
  },
};
