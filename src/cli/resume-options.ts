// The options that shape a resume plan, as resume, status, validate and doctor read them:
// --request, and the stale limit from --stale-after or DOTAGENT_STALE_AFTER.
import { usageError } from "../core/errors.js";
import type { ResumeOptions } from "../core/plan-resume.js";
import { requestOption, stringOption, type CommandContext } from "./context.js";

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

/** --request and --stale-after (or DOTAGENT_STALE_AFTER), as resume, status and validate read them. */
export function resumeOptions(context: CommandContext): ResumeOptions {
  const stale = stringOption(context, "stale-after");
  return { request: requestOption(context), staleAfterMs: stale === undefined ? staleAfterFromEnv() : parseDuration(stale, "stale-after") };
}
