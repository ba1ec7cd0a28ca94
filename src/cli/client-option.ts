// `--client claude|copilot|codex` (install, doctor, hook): which client's integration a command
// is about. Claude Code is the default; SPEC §11 (Claude Code), §22 (the other clients). The
// clients are the registry's (src/clients/index.ts).
import { usageError } from "../core/errors.js";
import {
  CLIENT_IDS,
  DEFAULT_CLIENT,
  adapterOf,
  isClientId,
  type ClientAdapter,
  type ClientId,
} from "../clients/index.js";
import { stringOption, type CommandContext } from "./context.js";

export const CLIENTS = CLIENT_IDS;
export type Client = ClientId;

export const isClient = isClientId;

/** The --client option; an unknown one is a usage error (exit 2). */
export function clientOption(context: CommandContext): Client {
  const client = stringOption(context, "client") ?? DEFAULT_CLIENT.id;
  if (!isClient(client)) throw usageError(`--client takes ${CLIENTS.join(", ")}, not "${client}"`);
  return client;
}

/** The adapter of the client --client names (Claude Code's when it is left out); an unknown one is exit 2. */
export const clientAdapter = (context: CommandContext): ClientAdapter => adapterOf(clientOption(context));
