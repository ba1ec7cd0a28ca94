// A decision's yes/no commands are meant to be copied and run as shown. When the call named its
// project with --dir (the library: openWorkflow(dir)), every `dotagent …` command in them repeats
// that --dir, quoted for a POSIX shell; without it they would act on whatever project the person's
// current folder holds. Applied here, where an operation hands its decision out, so the planners
// (plan-resume.ts, once.ts, …) stay free of the caller's options.
import { shellQuote, type Decision, type ResumePlan } from "../core/plan-resume.js";

/** `dotagent <command>` at the start of a command, or after `&&`, `;`, `|`, `then`. */
const COMMAND = /(^|[\s;&|(])dotagent ([a-z][\w-]*)/g;

/** `text` with `--dir DIR` after every dotagent command's name (so before any `--`), unless it has one. */
export function addDirToCommands(text: string, dir: string | undefined): string {
  if (dir === undefined) return text;
  return text.replace(COMMAND, (all: string, before: string, command: string, offset: number) => {
    // This command's own options: up to the next command separator or `--` (the rest is another program's).
    const rest = text.slice(offset + all.length).split(/\s--(?:\s|$)|[;&|]/)[0] ?? "";
    return /(^|\s)--dir(\s|=|$)/.test(rest) ? all : `${before}dotagent ${command} --dir ${shellQuote(dir)}`;
  });
}

export function decisionWithDir<D extends Decision | null>(decision: D, dir: string | undefined): D {
  if (decision === null || dir === undefined) return decision;
  return { ...decision, yes: addDirToCommands(decision.yes, dir), no: addDirToCommands(decision.no, dir) };
}

export function planWithDir(plan: ResumePlan, dir: string | undefined): ResumePlan {
  return plan.decision === null || dir === undefined
    ? plan
    : { ...plan, decision: decisionWithDir(plan.decision, dir) };
}
