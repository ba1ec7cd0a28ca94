// What every operation (src/ops/) gets instead of argv and a console: the project, the clock,
// and where warnings and notes go (the CLI: stderr; the library: the caller's onWarning or nowhere).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ProjectPaths } from "../store/project.js";
import { withLock, type Locked } from "../store/session.js";
import { ioFailure } from "../store/io-error.js";

export interface OpContext {
  readonly paths: ProjectPaths;
  readonly now: () => Date;
  /** A warning about the state or the lock (the CLI prints "dotagent: warning: …"). */
  readonly warn: (message: string) => void;
  /** A line about something done on the side, e.g. a cut-off rollback finished (printed as is). */
  readonly note: (line: string) => void;
  /** The --dir the call was given (as given), repeated in every decision's yes/no command (decision-dir.ts). */
  readonly dirArg?: string | undefined;
  /** The call comes from an agent's shell (Claude Code's Bash tool, not a terminal): a gate approval then needs the person's recorded reply (person-gate.ts). */
  readonly byModel?: boolean | undefined;
  /**
   * Whether the model's shell cannot write the repository's git folder (a client's sandbox around
   * the model's commands: Codex's workspace-write). A hook runs outside it and sees a writable
   * .git, but the question it hands the model must say that its yes cannot commit from there.
   */
  readonly modelGitReadOnly?: (() => boolean) | undefined;
  /** How a wait is made (tests pass their own; default: a timer). */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

/**
 * Runs `fn` under the state lock; a stale lock taken over is reported through `warn`.
 * If a state file changed on disk while `fn` ran (someone wrote without the lock), its write is
 * refused and `fn` runs again from a fresh read, up to three times, so no update is lost.
 */
export async function locked<T>(
  context: OpContext,
  command: string,
  fn: (locked: Locked) => T | Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withLock(
        context.paths,
        command,
        async (l) => {
          if (rollbackCutOff(context.paths)) await finishRollbackFirst(context);
          // A reply of the person's that asks dotagent to act, waiting for the client's record of it.
          if (replyWaits(context)) {
            const done = await (
              await import("./person-replies.js")
            ).carryOutPendingReply(context, {
              waitForRecord: true,
            });
            // The model acted on the hook's word that the person's reply would be carried out: it was not theirs.
            if (done.kind === "ignored")
              context.warn(
                `the prompt that would have approved, picked or started a step again was not the person's (${done.why}): nothing was done; ask the person`,
              );
          }
          return fn(l);
        },
        context.warn,
      );
    } catch (error) {
      if (attempt >= 3 || (error as { code?: unknown }).code !== "concurrent_write")
        throw ioFailure(error, context.paths.root) ?? error;
    }
  }
}

/** Whether a reply of the person's waits for the client's record (`.pending-reply.json`, one stat). */
const replyWaits = (context: OpContext) => existsSync(join(context.paths.stateDir, ".pending-reply.json"));

/**
 * For a command that checks the person's answer before it takes the lock: a reply of theirs that
 * waits is carried out first, as every locked command does (SPEC §11), so the check reads what it did.
 */
export async function carryWaitingReply(context: OpContext, command: string): Promise<void> {
  if (replyWaits(context)) await locked(context, command, () => undefined);
}

function rollbackCutOff(paths: ProjectPaths): boolean {
  return existsSync(join(paths.stateDir, ".rollback", "journal.json"));
}

async function finishRollbackFirst(context: OpContext): Promise<void> {
  const { finishCutOffRollback } = await import("./finish-rollback.js");
  await finishCutOffRollback(context.paths, context.now(), context.note);
}
