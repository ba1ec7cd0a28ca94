// Questions to a person: only on a terminal (stdin and stdout), never in an agent's shell.
import kleur from "kleur";
import type { PromptObject } from "prompts";
import type { Decision } from "../core/plan-resume.js";
import { interruptedError } from "../run/interrupt.js";
import type { Asker } from "../run/runner.js";
import { colorWanted, isInteractive } from "./output.js";
import { DotagentError, EXIT } from "../core/errors.js";

// prompts colours through kleur, which knows FORCE_COLOR and TERM=dumb but not NO_COLOR. prompts
// colours some symbols when it loads, so it loads after this line (below, on first use).
kleur.enabled = kleur.enabled && colorWanted();
const loadPrompts = async () => (await import("prompts")).default;

/**
 * yes/no answer, or "no-terminal" when nobody can be asked. A question cancelled (Ctrl-C, Esc) is
 * no answer: nothing is drawn as taken, the command ends `interrupted` (exit 130) having changed
 * nothing, and asks again when run again.
 */
export async function askDecision(decision: Decision, assumeYes: boolean): Promise<boolean | "no-terminal"> {
  if (assumeYes) return true;
  if (!isInteractive()) return "no-terminal";
  const prompts = await loadPrompts();
  let cancelled = false;
  const answer = await prompts(
    {
      type: "confirm",
      name: "ok",
      message: decision.question,
      initial: decision.default,
      onRender: quietWhenCancelled,
    },
    { onCancel: () => (cancelled = true) },
  );
  if (cancelled)
    throw new DotagentError(
      "interrupted",
      "interrupted at the question: nothing changed; run the command again to be asked again",
      EXIT.interrupted,
    );
  return answer.ok === true;
}

/**
 * A question cancelled with Ctrl-C or Esc leaves nothing on the screen: prompts erases the question,
 * then would draw it again as `✖ question › choice`, the choice under the cursor looking taken.
 * On that last drawing (its `onRender` hook, called with the prompt, after the erase) the prompt's
 * output is swapped for one that only lets the cursor be shown again; the caller says in one line
 * what happened (runner.ts: nothing approved, `dotagent run` asks again; askDecision: nothing changed).
 */
function quietWhenCancelled(this: { aborted?: boolean; out: NodeJS.WritableStream & { columns?: number } }): void {
  if (this.aborted !== true) return;
  const screen = this.out;
  const showCursor = "\u001b[?25h";
  this.out = Object.assign(Object.create(screen) as typeof screen, {
    write: (text: string) => (text.includes(showCursor) ? screen.write(showCursor) : true),
  });
}

/**
 * The questions `dotagent run` asks: a yes/no, a pick from a list, free text; `undefined` without a
 * terminal. A question the person cancels (Ctrl-C, Esc: the terminal is in raw mode, so no SIGINT)
 * stops the run: `interrupted`, as Ctrl-C anywhere else.
 */
export function terminalAsker(): Asker {
  const interactive = isInteractive();
  const ask = async <T>(question: PromptObject): Promise<T> => {
    const prompts = await loadPrompts();
    let cancelled = false;
    const answer = await prompts({ ...question, onRender: quietWhenCancelled }, { onCancel: () => (cancelled = true) });
    if (cancelled) throw interruptedError();
    return answer.value as T;
  };
  return {
    interactive,
    async confirm(question, initial) {
      if (!interactive) return undefined;
      return (await ask<boolean | undefined>({ type: "confirm", name: "value", message: question, initial })) === true;
    },
    async choose(question, choices, initial) {
      if (!interactive) return undefined;
      const index = Math.max(
        0,
        choices.findIndex((c) => c.name === initial),
      );
      const pick = await ask<unknown>({
        type: "select",
        name: "value",
        message: question,
        choices: choices.map((c) => ({ title: c.title ?? c.name, description: c.hint, value: c.name })),
        initial: index,
      });
      return typeof pick === "string" ? pick : undefined;
    },
    async text(question) {
      if (!interactive) return undefined;
      const text = await ask<unknown>({ type: "text", name: "value", message: question });
      return typeof text === "string" ? text : "";
    },
  };
}
