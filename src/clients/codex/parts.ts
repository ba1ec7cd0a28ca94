// The Codex CLI's cold parts (src/clients/adapter.ts): install and uninstall into the project's
// .agents/ and .codex/ (install.ts), doctor's checks (doctor.ts), the skill text (skill-text.ts).
import type { ClientColdParts } from "../adapter.js";
import { installedHere } from "../detect.js";
import { CODEX } from "../index.js";
import { checkCodex, readCodexFacts } from "./doctor.js";
import { installCodex, uninstallCodex } from "./install.js";
import { codexSkillText } from "./skill-text.js";

export const codexParts: ClientColdParts = {
  install: (o) => ({
    result: {
      ...installCodex({
        root: o.root,
        sourceRoot: o.sourceRoot,
        helperScript: o.helperScript,
        entryScript: o.entryScript,
        dryRun: o.dryRun,
        version: o.version,
      }),
      scope: "project",
    },
    notes: [],
  }),
  uninstall: (o) => ({
    result: { ...uninstallCodex({ root: o.root, dryRun: o.dryRun }), scope: "project" },
    notes: [],
  }),
  doctor: (paths) => ({
    installed: () => installedHere(CODEX, paths.root),
    checks: () => checkCodex(readCodexFacts(paths.root)),
  }),
  runsHeadless: false,
  skillText: codexSkillText,
};
