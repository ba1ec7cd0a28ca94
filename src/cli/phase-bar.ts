// The one-line picture of a workflow that `status` starts with for people:
// `REQ ✓ ─ ARCH ✓ ─ IMPL 1/3 ─ VERIF · ─ REFL ·`. The steps are the pinned flow's own (flowOf),
// so a definition's workflow shows its steps; develop's five get their short names. Pure.

/** develop's phases as people say them; any other step id is shortened by shortId. */
const SHORT: Readonly<Record<string, string>> = {
  REQUIREMENTS: "REQ",
  ARCHITECTURE: "ARCH",
  IMPLEMENTATION: "IMPL",
  VERIFICATION: "VERIF",
  REFLECTION: "REFL",
};

/** A step id in at most 6 characters: develop's table, or the id cut (ids that would then clash keep their full text). */
function shortIds(ids: readonly string[]): string[] {
  const cut = ids.map((id) => SHORT[id] ?? (id.length <= 6 ? id : id.slice(0, 5)));
  return cut.map((s, i) => (cut.indexOf(s) !== cut.lastIndexOf(s) ? ids[i]! : s));
}

export interface BarInput {
  /** The flow's step ids, in order. */
  readonly steps: readonly string[];
  readonly current: string;
  readonly status: "pending" | "in_progress" | "complete" | "failed";
  /** completed_phases, in order (a rework may list a step twice); `skipped`: its `when` did not match. */
  readonly completed: ReadonlyArray<{ readonly phase: string; readonly skipped?: boolean | undefined }>;
  /** The tasks step: its id, and done (complete or skipped) of total tasks. */
  readonly tasks?: { readonly step: string; readonly done: number; readonly total: number } | undefined;
}

/** ✓ done, – skipped by its `when`, ✗ failed, · not reached; the current step `…` (the tasks step: done/total). */
export function phaseBar(input: BarInput): string {
  const names = shortIds(input.steps);
  const at = input.steps.indexOf(input.current);
  const last = new Map(input.completed.map((c) => [c.phase, c.skipped === true]));
  return input.steps
    .map((id, i) => {
      const name = names[i]!;
      if (id === input.current) {
        if (input.status === "complete") return `${name} ✓`;
        if (input.status === "failed") return `${name} ✗`;
        if (input.tasks?.step === id && input.tasks.total > 0)
          return `${name} ${input.tasks.done}/${input.tasks.total}`;
        return `${name} …`;
      }
      // After the current step: not reached (a rework round went back to it), whatever earlier rounds did.
      if (at >= 0 && i > at) return `${name} ·`;
      if (last.has(id)) return `${name} ${last.get(id) ? "–" : "✓"}`;
      return `${name} ·`;
    })
    .join(" ─ ");
}
