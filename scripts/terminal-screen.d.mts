// Types for terminal-screen.mjs (plain JavaScript so it runs without a build step).
/** The screen's lines after a program wrote `raw` to a terminal, top to bottom. */
export function screenLines(raw: string): string[];
