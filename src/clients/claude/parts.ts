// Claude Code's cold parts (src/clients/adapter.ts): install and uninstall into .claude/
// (src/claude/install.ts), doctor's checks (doctor.ts), and its skill text: the files of skills/
// as they are.
import { join } from "node:path";
import { install, uninstall, type InstallResult } from "../../claude/install.js";
import { installTarget } from "../../claude/settings.js";
import type { ClientColdParts, ClientInstallOutcome } from "../adapter.js";
import { otherClientsSeen } from "../detect.js";
import { claudeDoctor } from "./doctor.js";

/** The --json result, and the plain output's lines of an install that wrote (`root`: the project; none for a dry run). */
function outcome(result: InstallResult, root: string | null): ClientInstallOutcome {
  const diffs =
    result.bash_diffs === "turned off" && !result.dry_run
      ? [
          'Bash diffs: off in this project (Claude Code showed each of dotagent\'s state changes as a diff under its commands); "bashEditDiffEnabled": true in .claude/settings.local.json brings them back for you.',
        ]
      : [];
  // A project install names the other clients the person seems to use here (src/clients/detect.ts).
  const others =
    root === null
      ? []
      : otherClientsSeen(root).map(
          (c) => `${c.name} too (${c.why}): \`dotagent install --client ${c.client}\` adds dotagent to it.`,
        );
  return { result: { client: "claude", ...result }, notes: [...diffs, ...others] };
}

export const claudeParts: ClientColdParts = {
  install: (o) => {
    // A project install also keeps memory/'s machine-local files out of git (SPEC §11).
    const gitignore = o.scope === "project" ? join(o.root, ".gitignore") : undefined;
    const result = install({
      target: installTarget(o.scope, o.root),
      scope: o.scope,
      dryRun: o.dryRun,
      sourceRoot: o.sourceRoot,
      helperScript: o.helperScript,
      entryScript: o.entryScript,
      version: o.version,
      ...(gitignore === undefined ? {} : { gitignore }),
    });
    return outcome(result, o.dryRun || o.scope !== "project" ? null : o.root);
  },
  uninstall: (o) =>
    outcome(uninstall({ target: installTarget(o.scope, o.root), scope: o.scope, dryRun: o.dryRun }), null),
  doctor: claudeDoctor,
  runsHeadless: true,
  skillText: (source) => source,
};
