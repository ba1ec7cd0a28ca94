// The clients' cold parts (install, uninstall, doctor's checks, skill text), one per adapter of the
// registry (src/clients/index.ts). Only the CLI's cold half imports this (src/cli/cold.ts), so the
// hooks and `status` never compile install or doctor code.
import type { ClientColdParts, ClientId } from "./adapter.js";
import { claudeParts } from "./claude/parts.js";
import { codexParts } from "./codex/parts.js";
import { copilotParts } from "./copilot/parts.js";

export const CLIENT_PARTS: Readonly<Record<ClientId, ClientColdParts>> = {
  claude: claudeParts,
  copilot: copilotParts,
  codex: codexParts,
};
