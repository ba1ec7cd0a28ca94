import { assertStatePaths } from "../../store/state-paths.js";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { usageError } from "../../core/errors.js";
import { installTarget, type Scope } from "../../claude/settings.js";
import { VERSION } from "../version.js";
import { loadCold } from "../load-cold.js";
import { stringOption, type Command } from "../context.js";

/** Folders of memory-template/ (relative, like memory/state), or the two every project needs. */
function memoryLayout(sourceRoot: string): string[] {
  const template = join(sourceRoot, "memory-template");
  const dirs: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(template, rel), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      dirs.push(child);
      walk(child);
    }
  };
  if (existsSync(template)) walk("");
  return dirs.length > 0 ? dirs : ["memory/state", "memory/reports"];
}

export const command: Command = {
  summary: "install the skills, agents and SessionStart hook into .claude/",
  usage: "dotagent install [--scope project|user] [--dry-run] [--uninstall] [--json]",
  options: { scope: { type: "string" }, "dry-run": { type: "boolean" }, uninstall: { type: "boolean" } },
  examples: [
    "dotagent install                      into this project's .claude/ (and create memory/)",
    "dotagent install --scope user         into ~/.claude/ for every project",
    "dotagent install --dry-run            show what would change",
    "dotagent install                      again after upgrading dotagent: updates the files you did not change",
    "dotagent install --uninstall          remove exactly what install added",
  ],
  async run(context) {
    const { findSourceRoot, install, uninstall } = await loadCold();
    const scope = (stringOption(context, "scope") ?? "project") as Scope;
    if (scope !== "project" && scope !== "user") throw usageError(`--scope takes project or user, not "${scope}"`);
    const dryRun = context.options["dry-run"] === true;
    const target = installTarget(scope, context.paths.root);
    // memory/ a file or a link would fail half-way through the install: refuse first.
    if (scope === "project") assertStatePaths(context.paths);
    let result;
    if (context.options.uninstall) {
      result = uninstall({ target, scope, dryRun });
    } else {
      const self = fileURLToPath(import.meta.url);
      // A project install also keeps memory/'s machine-local files out of git (SPEC §11).
      const gitignore = scope === "project" ? join(context.paths.root, ".gitignore") : undefined;
      result = install({ target, scope, dryRun, sourceRoot: findSourceRoot(dirname(self)), helperScript: readFileSync(self), version: VERSION, ...(gitignore === undefined ? {} : { gitignore }) });
      // The empty memory/ layout (memory-template/), so the hook and the skills find the project.
      if (scope === "project" && !dryRun) for (const dir of memoryLayout(findSourceRoot(dirname(self)))) mkdirSync(join(context.paths.root, dir), { recursive: true });
    }
    const changed = result.changes.filter((c) => c.action !== "unchanged");
    context.out.result(result, () => [
      `${context.options.uninstall ? "Uninstall" : "Install"} (${scope}) in ${target}${dryRun ? " — dry run, nothing written" : ""}:`,
      ...(changed.length === 0 ? ["  nothing to change"] : changed.map((c) => `  ${c.action.padEnd(9)} ${c.path}${c.reason ? `  (${c.reason})` : ""}`)),
      ...(context.options.uninstall || dryRun ? [] : [`Hook: ${result.settings}; helper permission: ${result.permission}; .gitignore: ${result.gitignore}. In Claude Code, type /develop <feature> to start; after \`claude -r\` the session is briefed at once.`]),
    ]);
    return 0;
  },
};
