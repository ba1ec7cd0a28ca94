// The main checkout as a workflow starts (SPEC §19 "Settled up front"): the person's uncommitted
// changes, asked about before the first agent runs rather than when the tasks are about to
// start. dotagent's own files (memory/, .dotagent/, .claude/, the .gitignore lines install
// wrote) are never the person's changes (checkoutFacts). Only git runs here; no state is written.
import type { CheckoutFacts } from "../core/worktrees.js";
import { checkoutFacts, commitCheckout } from "../store/worktrees.js";

/** The checkout's facts when it is a git repository with the person's uncommitted changes; else null (nothing to ask; git refused here: the tasks step asks). */
export function dirtyCheckoutAtStart(root: string): Extract<CheckoutFacts, { git: true }> | null {
  const facts = checkoutFacts(root);
  return facts.git === true && facts.dirty.length > 0 ? facts : null;
}

/** "Commit them now": one commit of the person's changes (dotagent's folders stay out); the files committed. */
export function commitAtStart(root: string, request: string): string[] {
  return commitCheckout(
    root,
    `dotagent: work in progress, committed before the workflow for "${request.slice(0, 60)}" starts`,
  );
}
