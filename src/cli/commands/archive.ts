import { DotagentError, EXIT, usageError } from "../../core/errors.js";

import { existsSync } from "node:fs";
import { hasState } from "../../store/project.js";
import { clearingPath } from "../../store/clearing-marker.js";
import { assertStatePaths } from "../../store/state-paths.js";
import { archiveLiveState } from "../../ops/fresh-start.js";
import { locked } from "../../ops/op-context.js";
import { loadCold } from "../load-cold.js";
import { opContext, stringOption, type Command } from "../context.js";
import { formatTime } from "../time.js";
import { outputWidth, table } from "../table.js";
import { subcommandGuess } from "../../core/suggest.js";
import { putDecision } from "../output.js";

export const command: Command = {
  summary: "archive the live state | archive list | archive restore NAME",
  usage:
    "dotagent archive [--reason TEXT] [--yes] | dotagent archive list [--json] | dotagent archive restore NAME [--yes]",
  options: { reason: { type: "string" }, yes: { type: "boolean", short: "y" } },
  examples: [
    "dotagent archive --reason 'starting over'     pack state and reports into memory/state/.archive/, then clear them",
    "dotagent archive list",
    "dotagent archive restore wf-login_20261120T103000Z.tar.gz",
  ],
  async run(context) {
    const [sub, name, ...rest] = context.args;
    if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
    assertStatePaths(context.paths); // .archive/ a file, memory/state a link: one line, exit 3
    const { archive } = await loadCold();
    const now = context.now();
    // Clearing or replacing the live workflow is the person's decision: from an agent's shell it is
    // handed back (exit 5) and its --yes counts only after the person replied (SPEC §8, §10).
    const replacesLive = sub === undefined || (sub === "restore" && name !== undefined);
    if (replacesLive && opContext(context).byModel) {
      const question =
        sub === undefined
          ? "Archive the live workflow and clear it (the archive keeps every file)?"
          : `Replace the live workflow with the archive ${name} (the live state is archived first)?`;
      const decision = {
        question,
        default: false,
        yes: `dotagent archive${sub === undefined ? "" : ` restore ${name}`} --yes`,
        no: "dotagent resume",
      };
      const answer = await (
        await import("../../ops/person-gate.js")
      ).decideAsModel(opContext(context), decision, context.options.yes === true);
      if (answer === "no-terminal") {
        return putDecision(context.out, { ok: false, decision }, decision);
      }
    }
    if (sub === undefined) {
      if (!hasState(context.paths) && !existsSync(clearingPath(context.paths)))
        throw new DotagentError(
          "nothing_to_archive",
          "there is no workflow state to archive here (memory/state/phase.json and execution.json do not exist)",
          EXIT.refused,
        );
      const reason = stringOption(context, "reason") ?? "archived by dotagent archive";
      const archived = await locked(opContext(context), "archive", () =>
        archiveLiveState(context.paths, reason, now, opContext(context).note),
      );
      context.out.result({ ok: true, archived }, () => [
        archived ? `Archived as ${archived}; the live state is cleared.` : "Nothing to archive.",
      ]);
      return EXIT.ok;
    }
    if (sub === "list") {
      const list = await archive.listArchives(context.paths.root);
      context.out.result({ archives: list }, () =>
        list.length === 0
          ? ["No archives."]
          : table(
              ["NAME", "ARCHIVED", "AT PHASE", "REASON"],
              list.map((a) => [
                a.name,
                formatTime(a.created_at),
                a.phase ?? "?",
                a.error ? `unreadable: ${a.error}` : (a.reason ?? ""),
              ]),
              outputWidth(),
            ),
      );
      return EXIT.ok;
    }
    if (sub === "restore") {
      if (name === undefined) throw usageError("archive restore needs an archive name; see `dotagent archive list`");
      const result = await locked(opContext(context), "archive restore", async () => {
        const restored = await archive.restoreArchive(context.paths.root, name, { now });
        await archive.pruneArchives(context.paths.root);
        return restored;
      });
      context.out.result(
        { ok: true, restored: result.restored.name, archived_live: result.archivedLive?.name ?? null },
        () => [
          ...(result.archivedLive ? [`Archived the live state as ${result.archivedLive.name}`] : []),
          `Restored ${result.restored.name}. Run \`dotagent resume\` to continue it.`,
        ],
      );
      return EXIT.ok;
    }
    throw usageError(
      `unknown archive sub-command "${sub}"${subcommandGuess("archive", sub, ["list", "restore"])}; use list or restore`,
    );
  },
};
