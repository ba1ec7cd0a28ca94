// The stale limit of a resume plan: "7d", "12h", "30m", "2w" or "never", from the caller or from
// DOTAGENT_STALE_AFTER (the CLI's --stale-after and the library's staleAfter read it the same way).
import { usageError } from "../core/errors.js";

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "7d", "12h", "30m", "2w", "never" → milliseconds (Infinity for never). */
export function parseDuration(text: string, option: string): number {
  if (text === "never") return Number.POSITIVE_INFINITY;
  const match = /^(\d+(?:\.\d+)?)([mhdw])$/.exec(text);
  if (!match) throw usageError(`--${option} takes a duration like 7d, 12h, 30m or never, not "${text}"`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export function staleAfterFromEnv(): number | undefined {
  const value = process.env.DOTAGENT_STALE_AFTER;
  return value ? parseDuration(value, "stale-after (DOTAGENT_STALE_AFTER)") : undefined;
}

/** The given limit, else DOTAGENT_STALE_AFTER, else undefined (the planner's default). */
export function staleAfterMs(text: string | undefined): number | undefined {
  return text === undefined ? staleAfterFromEnv() : parseDuration(text, "stale-after");
}
