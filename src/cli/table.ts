// Columns for people: a header line, cells padded to the widest of each column, and lines cut to
// the terminal's width with "…" (80 when it does not say) so a table never wraps. Piped output is
// not cut: whoever reads it gets every character (and --json has it all).

/** Rows under headers; the last column takes what is left of `width` (Infinity: no cut). */
export function table(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  width = Number.POSITIVE_INFINITY,
): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].map((l) =>
    l.length > width ? `${l.slice(0, Math.max(0, width - 1))}…` : l,
  );
}

/** The width to fit plain output to: the terminal's (at least 40), or none when not a terminal. */
export function outputWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  if (stream.isTTY !== true) return Number.POSITIVE_INFINITY;
  return Math.max(40, stream.columns ?? 80);
}
