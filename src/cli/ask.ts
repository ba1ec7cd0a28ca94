// Questions to a person: only on a terminal (stdin and stdout), never in an agent's shell.
import kleur from "kleur";
import type { Decision } from "../core/plan-resume.js";
import { colorWanted, isInteractive } from "./output.js";

// prompts colours through kleur, which knows FORCE_COLOR and TERM=dumb but not NO_COLOR. prompts
// colours some symbols when it loads, so it loads after this line (below, on first use).
kleur.enabled = kleur.enabled && colorWanted();
const loadPrompts = async () => (await import("prompts")).default;

/** yes/no answer, or "no-terminal" when nobody can be asked. */
export async function askDecision(decision: Decision, assumeYes: boolean): Promise<boolean | "no-terminal"> {
  if (assumeYes) return true;
  if (!isInteractive()) return "no-terminal";
  const prompts = await loadPrompts();
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
      const prompts = await loadPrompts();
      const answer = await prompts({ type: "confirm", name: "ok", message: question, initial }, { onCancel: () => true });
      return answer.ok === true;
    },
    async choose(question, choices, initial) {
      if (!interactive) return undefined;
      const index = Math.max(0, choices.findIndex((c) => c.name === initial));
      const prompts = await loadPrompts();
      const answer = await prompts({ type: "select", name: "pick", message: question, choices: choices.map((c) => ({ title: c.name, description: c.hint, value: c.name })), initial: index }, { onCancel: () => true });
      return typeof answer.pick === "string" ? answer.pick : undefined;
    },
  };
}
