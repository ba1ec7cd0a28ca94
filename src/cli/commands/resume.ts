import { existsSync } from "node:fs";
import { join } from "node:path";
import { splitWorkflowPrefix } from "../workflow-option.js";
import { resolveWorkflowName } from "../../ops/workflow-name.js";
import { EXIT, usageError } from "../../core/errors.js";
import { resumeWorkflow } from "../../ops/resume.js";
import { readFlow } from "../../store/state-files.js";
import { resumeOptions } from "../resume-options.js";
import { planLines } from "../render-plan.js";
import { maxParallelOption, opContext, type Command, type CommandContext, stringOption } from "../context.js";
import type { OpenRunView } from "../../ops/workflow-resume.js";
import { decider } from "../decider.js";
import { personNext, personReading } from "../person-next.js";

export const command: Command = {
  summary: "decide where to continue after an interruption (the main job)",
  positionals: "request",
  usage:
    "dotagent resume [--request TEXT [--start] [--workflow NAME]] [--dry-run] [--yes] [--stale-after 7d|never] [--max-parallel N] [--isolation commit|shared] [--keep-edit] [--keep-definition] [--json]",
  options: {
    "max-parallel": { type: "string" },
    request: { type: "string" },
    "dry-run": { type: "boolean" },
    start: { type: "boolean" },
    workflow: { type: "string" },
    yes: { type: "boolean", short: "y" },
    "stale-after": { type: "string" },
    isolation: { type: "string" },
    "keep-edit": { type: "boolean" },
    "keep-definition": { type: "boolean" },
  },
  examples: [
    "dotagent resume                         after `claude -r`: repair, then say what comes next",
    "dotagent resume --json --dry-run        the plan for an agent, nothing written",
    "dotagent resume --request 'add login'   also check the request is the one the workflow is for",
    "dotagent resume --request 'add login' --start   no workflow yet: start one for that request (what /develop runs)",
    "dotagent resume --max-parallel 1        run one task at a time from now on (default 3; stored)",
    "dotagent resume --isolation commit      uncommitted changes before the tasks start: commit them (worktrees)",
    "dotagent resume --isolation shared      … or run this round's tasks in the one checkout, without worktrees",
    "dotagent resume --keep-edit             phase.json was edited by hand: keep the edit (dotagent adopts it)",
    "dotagent resume --dir ../other-project --dry-run",
  ],
  async run(context) {
    const isolation = context.options.isolation;
    if (isolation !== undefined && isolation !== "commit" && isolation !== "shared")
      throw usageError(`--isolation must be commit or shared, not ${JSON.stringify(isolation)}`);
    // `/develop --workflow fix …` passes its whole text as the request: a leading --workflow NAME names the definition.
    const split =
      context.options.start === true
        ? splitWorkflowPrefix(resumeOptions(context).request)
        : { request: resumeOptions(context).request };
    const name = stringOption(context, "workflow") ?? split.name;
    const workflow = name === undefined ? undefined : await resolveWorkflowName(context.paths.root, name);
    const input = {
      ...resumeOptions(context),
      request: split.request,
      workflow,
      maxParallel: maxParallelOption(context),
      dryRun: context.options["dry-run"] === true,
      start: context.options.start === true,
      keepEdits: context.options["keep-edit"] === true,
      keepDefinition: context.options["keep-definition"] === true,
      isolation: isolation as "commit" | "shared" | undefined,
    };
    const outcome = await resumeWorkflow(opContext(context), {
      ...input,
      decide: decider(context, context.options.yes === true),
    });
    if (outcome === undefined) return EXIT.refused;
    const { plan, result, mode } = outcome;
    const flow = await readFlow(context.paths); // after resume: the workflow it left in force
    const open = await openWorkflowRuns(context);
    context.out.result(open.runs.length === 0 ? result : { ...result, claude_workflow_runs: open.runs }, () => {
      const driver = personReading(context);
      return [
        ...planLines(plan, context.out.color, mode, flow, {
          next: driver === null ? null : personNext(plan.next, driver, flow),
        }),
        ...open.lines,
      ];
    });
    return outcome.exitCode;
  },
};

/** Claude Code's Workflow runs left open (SPEC §5 `claude_workflow_runs`): loaded only when runs are kept here. */
async function openWorkflowRuns(context: CommandContext): Promise<{ runs: OpenRunView[]; lines: string[] }> {
  if (!existsSync(join(context.paths.stateDir, "workflow-runs"))) return { runs: [], lines: [] };
  const { openRunsForResume } = await import("../../ops/workflow-resume.js");
  return openRunsForResume(context.paths, process.argv[1]);
}
