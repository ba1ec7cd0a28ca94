// The options that shape a resume plan, as resume, status, validate and doctor read them:
// --request, and the stale limit from --stale-after or DOTAGENT_STALE_AFTER.
import type { ResumeOptions } from "../core/plan-resume.js";
import { staleAfterMs } from "../ops/stale-after.js";
import { requestOption, stringOption, type CommandContext } from "./context.js";

/** --request and --stale-after (or DOTAGENT_STALE_AFTER), as resume, status and validate read them. */
export function resumeOptions(context: CommandContext): ResumeOptions {
  return { request: requestOption(context), staleAfterMs: staleAfterMs(stringOption(context, "stale-after")) };
}
