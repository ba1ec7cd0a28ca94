// The clients' registry: one adapter each (src/clients/adapter.ts), Claude Code included. Hot and
// tiny: descriptors only. Their parts are keyed by the same ids: the hooks in hook-parts.ts (a
// dynamic import each, for `dotagent hook`), install, uninstall, doctor's checks and the skill text
// in cold-parts.ts (the CLI's cold half). Every table of clients reads these.
import { CLIENT_IDS, type ClientAdapter, type ClientId } from "./adapter.js";

const TRUST = "answer yes when it asks whether you trust the folder";

export const CLAUDE: ClientAdapter = {
  id: "claude",
  name: "Claude Code",
  fullName: "Claude Code",
  command: "claude",
  folder: ".claude",
  manifest: ".claude/.dotagent-install.json",
  scopes: ["project", "user"],
  scopeRefusal: null,
  startWord: "/develop",
  trust: TRUST,
};

export const COPILOT: ClientAdapter = {
  id: "copilot",
  name: "Copilot CLI",
  fullName: "GitHub Copilot CLI",
  command: "copilot",
  folder: ".github/copilot-instructions.md",
  manifest: ".github/.dotagent-copilot-install.json",
  scopes: ["project"],
  scopeRefusal: "--client copilot installs into the project's .github/ only (no --scope user)",
  startWord: "/develop",
  trust: TRUST,
};

export const CODEX: ClientAdapter = {
  id: "codex",
  name: "Codex CLI",
  fullName: "Codex CLI",
  command: "codex",
  folder: ".codex",
  manifest: ".codex/.dotagent-install.json",
  scopes: ["project"],
  scopeRefusal: "--client codex installs into the project only (Codex reads .agents/skills and .codex/ there)",
  startWord: "$develop",
  trust: `${TRUST} and choose "Trust all and continue" for its hooks`,
};

/** Every client, in CLIENT_IDS's order. */
export const ADAPTERS: readonly ClientAdapter[] = [CLAUDE, COPILOT, CODEX];

/** The client `--client` means when it is left out. */
export const DEFAULT_CLIENT: ClientAdapter = CLAUDE;

export const isClientId = (value: unknown): value is ClientId =>
  typeof value === "string" && (CLIENT_IDS as readonly string[]).includes(value);

export function adapterOf(id: ClientId): ClientAdapter {
  return ADAPTERS.find((a) => a.id === id)!;
}

export { CLIENT_IDS, type ClientAdapter, type ClientId } from "./adapter.js";
