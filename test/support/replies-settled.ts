// A person's reply at a gate is carried out by dotagent's reply carrier, a process the
// UserPromptSubmit hook starts, once the client has recorded the prompt (src/ops/reply-carrier.ts);
// the model is told the next step meanwhile, so a session can end ("the workflow is complete")
// before the carrier has written the approval. A journey reads the state once the carrier is done:
// its marker gone. The carrier gives up after a minute by itself, so this waits a little longer.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** True once no reply waits in `project`'s memory/state; false if one still waits after `timeoutMs`. */
export async function repliesSettled(project: string, timeoutMs = 70_000): Promise<boolean> {
  const marker = join(project, "memory/state/.pending-reply.json");
  const until = Date.now() + timeoutMs;
  while (existsSync(marker)) {
    if (Date.now() > until) return false;
    await sleep(50);
  }
  return true;
}
