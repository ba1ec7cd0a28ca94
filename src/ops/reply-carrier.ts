// The carrier's loop (src/store/reply-carrier.ts starts it): while a reply waits, look for the
// client's record of it, sooner first (the client writes it right after the hook returns), and
// carry it out under the state lock once it is confirmed as the person's. It gives up after
// `forMs`, leaving the reply to the next locked command, as it does a reply that was not the
// person's (that command tells its caller why).
import type { PersonPrompt } from "./person-replies.js";
import type { OpContext } from "./op-context.js";

export interface CarrierClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** What became of the reply: carried out (its kind), left to the next locked command (`pending`, or `none` when it was not the person's), or gone (`none`). */
export async function carryWhenRecorded(
  context: OpContext,
  clock: CarrierClock,
  forMs = 60_000,
): Promise<PersonPrompt["kind"]> {
  const { carryOutPendingReply, hasPendingReply } = await import("./person-replies.js");
  const { withLock } = await import("../store/session.js");
  const until = clock.now() + forMs;
  for (let wait = 25; ; wait = Math.min(wait * 2, 2_000)) {
    if (!hasPendingReply(context.paths.stateDir)) return "none";
    try {
      const done = await withLock(
        context.paths,
        "carry the person's reply",
        () => carryOutPendingReply(context, { personOnly: true }),
        context.warn,
      );
      if (done.kind !== "pending") return done.kind;
    } catch (error) {
      // Busy (another command holds the lock, and carries the reply out itself): look again.
      if ((error as { code?: unknown }).code !== "locked") return "pending";
    }
    if (clock.now() + wait > until) return "pending";
    await clock.sleep(wait);
  }
}
