// `dotagent claims [WORKFLOW_ID] [--remote NAME] [--json]`: which machine holds which task of a
// workflow, and since when, as the git remote's claim refs say (SPEC §23). One ls-remote and one
// fetch of the claims' objects, no ref or file of the project written; no lock. The work is in the
// cold half (src/ops/claims.ts: zod reads every claim, each untrusted).
import { usageError } from "../../core/errors.js";
import { escapeControls } from "../../core/words.js";
import { readPhaseFile } from "../../store/state-files.js";
import { stringOption, type Command, type CommandContext } from "../context.js";
import type { ClaimList } from "../../ops/claims.js";
import { loadCold } from "../load-cold.js";
import { table } from "../table.js";

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
    const list = await remoteClaims(context, workflowId);
    context.out.result(list, () => claimLines(list));
    return 0;
  },
};

/** The remote's claims of a workflow (`--remote NAME`, default origin): one ls-remote and one fetch. */
export async function remoteClaims(context: CommandContext, workflowId: string): Promise<ClaimList> {
  const remote = stringOption(context, "remote") ?? "origin";
  const { listClaims } = await loadCold();
  return listClaims({ cwd: context.paths.root, remote }, workflowId, context.now());
}

/** The claims for people: a count line, the table, a line per invalid ref (`claims`, `tasks --claims`). */
export function claimLines(list: ClaimList): string[] {
  const counts = (["held", "released", "done"] as const)
    .map((s) => `${list.claims.filter((c) => c.state === s).length} ${s}`)
    .join(", ");
  const lines = [`${list.workflow_id} on ${list.remote}: ${list.claims.length} claims, ${counts}`];
  if (list.claims.length > 0)
    lines.push(
      ...table(
        ["TASK", "STATE", "HOST", "PID", "WORKER", "SINCE", "UNTIL", "ATTEMPT"],
        list.claims.map((c) => [
          c.task_id,
          c.lapsed ? "held (lapsed)" : c.state,
          escapeControls(c.worker.host),
          String(c.worker.pid),
          c.worker.id,
          c.claimed_at,
          c.expires_at ?? "",
          String(c.attempt),
        ]),
      ),
    );
  for (const bad of list.invalid)
    lines.push(`${bad.task_id}: not a claim dotagent wrote (${escapeControls(bad.problem)}); left alone`);
  return lines;
}
