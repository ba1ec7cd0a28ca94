// The person's reply carried out the moment the client records it (issue 40, SPEC §11 "The
// person's answer"). Claude Code writes a prompt into its transcript only after UserPromptSubmit
// returns, so the hook cannot confirm the reply itself; it leaves `.pending-reply.json`, and every
// locked command carries it out first. When nothing locked follows (the workflow's last gate:
// the model says "complete" and ends its turn), the approval would wait for the next session. So
// the hook also starts this carrier: a detached `hook carry-reply` that looks for the record a few
// times over a minute and carries the reply out once it is confirmed as the person's. It is an
// accelerator only: killed, or never started (a client that ends the hook's children), the next
// locked command does the same, and what is not the person's is always left to that command.
import { spawn } from "node:child_process";

/** Starts the carrier for the project at `root` through the helper `script`; never throws, never waits. */
export function startReplyCarrier(root: string, script: string | undefined): void {
  if (script === undefined || script === "" || process.env.DOTAGENT_REPLY_CARRIER === "0") return;
  try {
    const child = spawn(process.execPath, [script, "hook", "carry-reply", "--dir", root], {
      detached: true,
      stdio: "ignore",
      env: { ...process.env, DOTAGENT_LOCK_WAIT_MS: "2000" },
    });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // The next locked command carries the reply out.
  }
}
