// The claims of a workflow for people (`dotagent claims`, `status --claims`, `tasks --claims`,
// SPEC §23), in the cold half with the claims they show.
import { escapeControls } from "../core/words.js";
import type { ClaimList } from "../ops/claims.js";
import { table } from "./table.js";

/** The claims for people: a count line, the table, a line per invalid ref (`claims`, `status` and `tasks --claims`). */
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
