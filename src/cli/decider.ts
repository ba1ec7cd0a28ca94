// Who answers a decision (SPEC §10, §11): a person at a terminal (the prompt, or --yes), else,
// from an agent's shell in Claude Code, the person's recorded reply (ops/person-gate.ts): the
// decision is handed back for the model to relay, and its --yes counts only after the person spoke.
import type { Decide } from "../ops/resume.js";
import { loadCold } from "./load-cold.js";
import { opContext, type CommandContext } from "./context.js";

export function decider(context: CommandContext, yes: boolean): Decide {
  const op = opContext(context);
  if (op.byModel) return async (decision) => (await import("../ops/person-gate.js")).decideAsModel(op, decision, yes);
  return async (decision) => (await loadCold()).askDecision(decision, yes);
}
