// `--client claude|copilot|codex` (install, doctor, hook): which client's integration a command
// is about. Claude Code is the default; SPEC §11 (Claude Code), §22 (the other clients).
import { usageError } from "../core/errors.js";
import { stringOption, type CommandContext } from "./context.js";

export const CLIENTS = ["claude", "copilot", "codex"] as const;
export type Client = (typeof CLIENTS)[number];

export const isClient = (value: unknown): value is Client =>
  typeof value === "string" && (CLIENTS as readonly string[]).includes(value);

/** The --client option; an unknown one is a usage error (exit 2). */
export function clientOption(context: CommandContext): Client {
  const client = stringOption(context, "client") ?? "claude";
  if (!isClient(client)) throw usageError(`--client takes ${CLIENTS.join(", ")}, not "${client}"`);
  return client;
}
