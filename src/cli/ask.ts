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

/** The questions `dotagent run` asks: a yes/no and a pick from a list; `undefined` without a terminal. */
export function terminalAsker(): { interactive: boolean; confirm(q: string, initial: boolean): Promise<boolean | undefined>; choose(q: string, choices: readonly { name: string; hint: string }[], initial: string): Promise<string | undefined> } {
  const interactive = isInteractive();
  return {
    interactive,
    async confirm(question, initial) {
      if (!interactive) return undefined;
      const answer = await prompts({ type: "confirm", name: "ok", message: question, initial }, { onCancel: () => true });
      return answer.ok === true;
    },
    async choose(question, choices, initial) {
      if (!interactive) return undefined;
      const index = Math.max(0, choices.findIndex((c) => c.name === initial));
      const answer = await prompts({ type: "select", name: "pick", message: question, choices: choices.map((c) => ({ title: c.name, description: c.hint, value: c.name })), initial: index }, { onCancel: () => true });
      return typeof answer.pick === "string" ? answer.pick : undefined;
    },
  };
}
