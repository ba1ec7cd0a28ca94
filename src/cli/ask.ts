// Questions to a person: only on a terminal (stdin and stdout), never in an agent's shell.
import prompts from "prompts";
import type { Decision } from "../core/plan-resume.js";
import { isInteractive } from "./output.js";

/** yes/no answer, or "no-terminal" when nobody can be asked. */
export async function askDecision(decision: Decision, assumeYes: boolean): Promise<boolean | "no-terminal"> {
  if (assumeYes) return true;
  if (!isInteractive()) return "no-terminal";
  const answer = await prompts({ type: "confirm", name: "ok", message: decision.question, initial: decision.default }, { onCancel: () => true });
  return answer.ok === true;
}
