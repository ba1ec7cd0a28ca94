import { EXIT, usageError } from "../../core/errors.js";
import { idProblem } from "../../schema/json.js";
import { startWorkflow } from "../../ops/init.js";
import { opContext, requestOption, stringOption, type Command } from "../context.js";
import { decider } from "../decider.js";
import { personNext, personReading } from "../person-next.js";
import { resolveWorkflowName } from "../../ops/workflow-name.js";
import { readFlow } from "../../store/state-files.js";
import { putDecision } from "../output.js";

export const command: Command = {
  summary:
    "start a workflow's state at its first step, without its agents: `dotagent run` or /develop in your client carries it on (an existing one is archived first, after asking)",
  positionals: "request",
  usage: "dotagent init [--request TEXT] [--workflow NAME] [--workflow-id ID] [--yes] [--json]",
  options: {
    request: { type: "string" },
    workflow: { type: "string" },
    "workflow-id": { type: "string" },
    yes: { type: "boolean", short: "y" },
  },
  examples: [
    "dotagent init --request 'add login'            workflow wf-add-login at REQUIREMENTS",
    "dotagent init --request 'add login' --workflow-id wf-login",
    "dotagent init --workflow fix --request 'login fails with +'   the fix workflow (dotagent workflows lists them)",
    "dotagent init --request 'add signup' --yes       archive the current workflow and start anew",
  ],
  async run(context) {
    const request = requestOption(context);
    const workflowId = stringOption(context, "workflow-id");
    const idError = workflowId === undefined ? null : idProblem(workflowId, "workflow id");
    if (idError !== null) throw usageError(`--workflow-id: ${idError}`);
    const name = stringOption(context, "workflow");
    const workflow = name === undefined ? undefined : await resolveWorkflowName(context.paths.root, name);
    const result = await startWorkflow(opContext(context), {
      request,
      workflowId,
      decide: decider(context, context.options.yes === true),
      workflow,
    });
    if (!result.created) {
      const { decision } = result;
      return putDecision(context.out, result, decision);
    }
    const flow = await readFlow(context.paths); // the workflow just started
    context.out.result(result, () => {
      const driver = personReading(context);
      return [
        ...(result.archived ? [`Archived the previous state as ${result.archived}`] : []),
        `Started workflow ${context.out.color.bold(result.workflow_id)}${result.workflow === "develop" ? "" : ` (${result.workflow})`} at ${result.phase}.`,
        (driver === null ? null : personNext(result.next, driver, flow)) ?? `Next: ${result.next.reason}`,
      ];
    });
    return EXIT.ok;
  },
};
