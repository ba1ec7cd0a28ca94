// The Codex client's install and doctor checks, for the CLI's cold half (src/cli/cold.ts).
export { installCodex, uninstallCodex, codexInstallState, CODEX_HELPER, CODEX_HOOKS } from "./install.js";
import { checkCodex, readCodexFacts } from "./doctor.js";
/** `dotagent doctor --client codex`'s checks for the project at `root`. */
export const codexChecks = (root: string) => checkCodex(readCodexFacts(root));
