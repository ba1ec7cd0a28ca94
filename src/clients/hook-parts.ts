// The clients' hooks (src/clients/adapter.ts ClientHooks), each a dynamic import: only `dotagent
// hook` loads one, and only the one its --client names. Kept apart from the descriptors so the
// cold half (install, doctor), which reads the registry, carries no hook code.
import type { ClientHooks, ClientId } from "./adapter.js";

export const CLIENT_HOOKS: Readonly<Record<ClientId, () => Promise<ClientHooks>>> = {
  claude: async () => (await import("./claude/hook-run.js")).claudeHooks,
  copilot: async () => (await import("./copilot/hook-run.js")).copilotHooks,
  codex: async () => (await import("./codex/hook-run.js")).codexHooks,
};
