// Words for messages people read: counted nouns ("1 task", "2 tasks", never "1 task(s)") and durations.

/** `count(1, "task")` → "1 task"; `count(3, "task")` → "3 tasks"; irregular plurals passed in. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** How long something took, for people: "0.4s", "12s", "3m 05s", "1h 02m". */
export function formatDuration(ms: number): string {
  const safe = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (safe < 10_000) return `${(Math.floor(safe / 100) / 10).toFixed(1)}s`;
  const seconds = Math.floor(safe / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/**
 * Someone's words (an agent's error, a report's reason) in one line of a message: whitespace
 * runs made one space, control characters shown (escapeControls), cut to `max` with "…".
 */
export function oneLine(text: string, max: number): string {
  const flat = escapeControls(text.replace(/\s+/g, " ").trim());
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** Text a terminal shows as it is: control characters (C0, DEL, C1) written as `\u001b`, so a request or a committed log cannot set a window title, the clipboard or clear the screen. */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Characters no text from a definition may hold (SPEC §20): C0 controls but tab and line feed
 * (NUL cuts a command short; ESC sequences rewrite what a terminal shows: a title or a command in
 * a question could hide what really runs), DEL, C1, the line and paragraph separators, and the
 * bidirectional overrides and isolates, which reorder what a person reads ("Trojan Source").
 */
const REFUSED_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The first refused control character in `text` ("U+001B at character 7"), or null. */
export function controlCharacterIn(text: string): string | null {
  const found = REFUSED_CONTROLS.exec(text);
  if (found === null) return null;
  return `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")} at character ${found.index + 1}`;
}
