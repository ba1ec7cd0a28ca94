// `dotagent claims [WORKFLOW_ID] [--remote NAME] [--json]`: which machine holds which task of a
// workflow, and since when, as the git remote's claim refs say (SPEC §23). One ls-remote and one
// fetch of the claims' objects, no ref or file of the project written; no lock. The work is in the
// cold half (src/ops/claims.ts: zod reads every claim, each untrusted; claims-view.ts: its lines).
import { usageError } from "../../core/errors.js";
import { readPhaseFile } from "../../store/state-files.js";
import { stringOption, type Command, type CommandContext } from "../context.js";
import { loadCold } from "../load-cold.js";

export const command: Command = {
  summary: "which machine holds which task, and since when, from the git remote's claims; never changes them",
  usage: "dotagent claims [WORKFLOW_ID] [--remote NAME] [--json]",
  options: { remote: { type: "string" } },
  examples: [
    "dotagent claims                     the claims of this project's workflow on origin",
    "dotagent claims wf-login --remote upstream --json",
  ],
  async run(context) {
    const [named, ...rest] = context.args;
    if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
    let workflowId = named;
    if (workflowId === undefined) {
      const phase = await readPhaseFile(context.paths);
      if (phase.kind !== "ok")
        throw usageError("no workflow here to list the claims of: name one, `dotagent claims WORKFLOW_ID`");
      workflowId = phase.value.workflow_id;
    }
    const { list, lines } = await remoteClaims(context, workflowId);
    context.out.result(list, lines);
    return 0;
  },
};

/** The remote's claims of a workflow (`--remote NAME`, default origin), and their lines for people (cold half). */
export async function remoteClaims(context: CommandContext, workflowId: string) {
  const remote = stringOption(context, "remote") ?? "origin";
  const { listClaims, claimLines } = await loadCold();
  const list = listClaims({ cwd: context.paths.root, remote }, workflowId, context.now());
  return { list, lines: () => claimLines(list) };
}

/** `status --claims` and `tasks --claims [--remote NAME]`: the remote's claims of the workflow, when there is one. */
export async function claimsFor(context: CommandContext, workflowId: string | null) {
  if (context.options.claims !== true) {
    if (context.options.remote !== undefined)
      throw usageError("--remote names the git remote of --claims: give both, or neither");
    return undefined;
  }
  return workflowId === null ? undefined : remoteClaims(context, workflowId);
}
