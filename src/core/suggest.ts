// "did you mean --json?": the nearest known name to a mistyped one, when it is near enough to be
// a typo (edit distance at most 2, and less than half the word) rather than a different word.

function distance(a: string, b: string): number {
  // Optimal string alignment: a swap of two neighbours ("--josn") counts as one edit.
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name nearest to `typed`, or null when none is a likely typo of it. */
export function nearest(typed: string, known: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const name of known) {
    const d = distance(typed.toLowerCase(), name.toLowerCase());
    if (best === null || d < best.d) best = { name, d };
  }
  if (best === null) return null;
  const limit = Math.min(2, Math.floor((typed.length - 1) / 2));
  return best.d <= limit ? best.name : null;
}

/** " (did you mean `dotagent phase approve`?)" for a mistyped sub-command, or "" when none is near. */
export function subcommandGuess(command: string, typed: string | undefined, known: readonly string[]): string {
  const guess = typed === undefined ? null : nearest(typed, known);
  return guess === null ? "" : ` (did you mean \`dotagent ${command} ${guess}\`?)`;
}
