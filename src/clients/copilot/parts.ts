// Copilot CLI's cold parts (src/clients/adapter.ts): install and uninstall into the project's
// .github/ (install.ts), doctor's checks (doctor.ts), the skill text (skill-text.ts).
import type { ClientColdParts } from "../adapter.js";
import { installedHere } from "../detect.js";
import { COPILOT } from "../index.js";
import { copilotChecks, gatherCopilotFacts } from "./doctor.js";
import { installCopilot, uninstallCopilot } from "./install.js";
import { copilotSkillText } from "./skill-text.js";

export const copilotParts: ClientColdParts = {
  install: (o) => ({
    result: {
      ...installCopilot({
        root: o.root,
        sourceRoot: o.sourceRoot,
        helperScript: o.helperScript,
        entryScript: o.entryScript,
        dryRun: o.dryRun,
        version: o.version,
      }),
    },
    notes: [],
  }),
  uninstall: (o) => ({ result: { ...uninstallCopilot({ root: o.root, dryRun: o.dryRun }) }, notes: [] }),
  doctor: (paths, version) => ({
    installed: () => installedHere(COPILOT, paths.root),
    checks: () => copilotChecks(gatherCopilotFacts(paths.root), version),
  }),
  runsHeadless: false,
  skillText: copilotSkillText,
};
