import { assertStatePaths } from "../../store/state-paths.js";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdirInside } from "../../store/write-file.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { usageError } from "../../core/errors.js";
import { installTarget, type Scope } from "../../claude/settings.js";
import { VERSION } from "../version.js";
import { loadCold } from "../load-cold.js";
import { clientOption } from "../client-option.js";
import { otherClientsSeen } from "../../clients/detect.js";
import { stringOption, type Command, type CommandContext } from "../context.js";
import type { InstallDone } from "../../install/next-steps.js";

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
  usage: "dotagent install [--client claude|copilot|codex] [--scope project|user] [--dry-run] [--uninstall] [--json]",
  options: {
    client: { type: "string" },
    scope: { type: "string" },
    "dry-run": { type: "boolean" },
    uninstall: { type: "boolean" },
  },
  examples: [
    "dotagent install                      into this project's .claude/ (and create memory/)",
    "dotagent install --scope user         into ~/.claude/ for every project",
    "dotagent install --dry-run            show what would change",
    "dotagent install                      again after upgrading dotagent: updates the files you did not change",
    "dotagent install --uninstall          remove exactly what install added",
    "dotagent install --client copilot     into this project's .github/ for GitHub Copilot CLI",
    "dotagent install --client codex       into this project's .agents/ and .codex/ for the Codex CLI",
  ],
  async run(context) {
    const client = clientOption(context);
    if (client === "copilot") return installForCopilot(context);
    if (client === "codex") return installForCodex(context);
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
      result = install({
        target,
        scope,
        dryRun,
        sourceRoot: findSourceRoot(dirname(self)),
        helperScript: readFileSync(self),
        version: VERSION,
        ...(gitignore === undefined ? {} : { gitignore }),
      });
      // The empty memory/ layout (memory-template/), so the hook and the skills find the project.
      if (scope === "project" && !dryRun)
        for (const dir of memoryLayout(findSourceRoot(dirname(self))))
          mkdirInside(context.paths.root, join(context.paths.root, dir));
    }
    const diffs =
      result.bash_diffs === "turned off" && !dryRun
        ? [
            'Bash diffs: off in this project (Claude Code showed each of dotagent\'s state changes as a diff under its commands); "bashEditDiffEnabled": true in .claude/settings.local.json brings them back for you.',
          ]
        : [];
    const others =
      context.options.uninstall || dryRun || scope !== "project"
        ? []
        : otherClientsSeen(context.paths.root).map(
            (c) => `${c.name} too (${c.why}): \`dotagent install --client ${c.client}\` adds dotagent to it.`,
          );
    return done(
      context,
      { client: "claude", ...result, root: context.paths.root },
      () => planLines(context, scope, target, result.changes),
      [...diffs, ...others],
    );
  },
};

/** The plain output's head: what was (or, in a dry run, would be) done, one line per change; unchanged files are not listed. */
function planLines(
  context: CommandContext,
  what: string,
  where: string,
  changes: ReadonlyArray<{ action: string; path: string; reason?: string }>,
): string[] {
  const changed = changes.filter((c) => c.action !== "unchanged");
  return [
    `${context.options.uninstall ? "Uninstall" : "Install"} (${what}) in ${where}${context.options["dry-run"] === true ? " — dry run, nothing written" : ""}:`,
    ...(changed.length === 0
      ? ["  nothing to change"]
      : changed.map((c) => `  ${c.action.padEnd(9)} ${c.path}${c.reason ? `  (${c.reason})` : ""}`)),
  ];
}

/**
 * Prints an install's result: `--json` with `client` and `commit_paths` added (the paths to commit,
 * relative to the project; [] for a user install, a dry run or --uninstall); plain, the plan's
 * lines, then (an install that wrote) what was done in plain words and what to do next.
 */
async function done(
  context: CommandContext,
  result: InstallDone & Record<string, unknown>,
  plan: () => string[],
  others: string[] = [],
): Promise<number> {
  const { commitPaths, installClosing, uncommittedPaths } = await loadCold();
  const closing = !context.options.uninstall && context.options["dry-run"] !== true;
  const paths = closing ? commitPaths(result) : [];
  context.out.result({ ...result, root: undefined, commit_paths: paths }, () => [
    ...plan(),
    ...others,
    ...(closing ? installClosing(result, uncommittedPaths(result.root, paths), process.cwd()) : []),
  ]);
  return 0;
}

/** `--client copilot`: the project's .github/ (src/clients/copilot/install.ts). */
async function installForCopilot(context: CommandContext): Promise<number> {
  const scope = stringOption(context, "scope") ?? "project";
  if (scope !== "project")
    throw usageError("--client copilot installs into the project's .github/ only (no --scope user)");
  const { findSourceRoot, installCopilot, uninstallCopilot } = await loadCold();
  const dryRun = context.options["dry-run"] === true;
  assertStatePaths(context.paths);
  const self = fileURLToPath(import.meta.url);
  const sourceRoot = findSourceRoot(dirname(self));
  const result = context.options.uninstall
    ? uninstallCopilot({ root: context.paths.root, dryRun })
    : installCopilot({
        root: context.paths.root,
        sourceRoot,
        helperScript: readFileSync(self),
        dryRun,
        version: VERSION,
      });
  if (!context.options.uninstall && !dryRun)
    for (const dir of memoryLayout(sourceRoot)) mkdirInside(context.paths.root, join(context.paths.root, dir));
  return done(context, { ...result, root: context.paths.root }, () =>
    planLines(context, "copilot", result.target, result.changes),
  );
}

/** `--client codex`: the project's .agents/skills/ and .codex/ (src/clients/codex/install.ts). */
async function installForCodex(context: CommandContext): Promise<number> {
  const { findSourceRoot, codex } = await loadCold();
  const scope = stringOption(context, "scope") ?? "project";
  if (scope !== "project")
    throw usageError("--client codex installs into the project only (Codex reads .agents/skills and .codex/ there)");
  const dryRun = context.options["dry-run"] === true;
  assertStatePaths(context.paths);
  const root = context.paths.root;
  let result;
  if (context.options.uninstall) {
    result = codex.uninstallCodex({ root, dryRun });
  } else {
    const self = fileURLToPath(import.meta.url);
    result = codex.installCodex({
      root,
      dryRun,
      sourceRoot: findSourceRoot(dirname(self)),
      helperScript: readFileSync(self),
      version: VERSION,
    });
    if (!dryRun) for (const dir of memoryLayout(findSourceRoot(dirname(self)))) mkdirInside(root, join(root, dir));
  }
  return done(context, { ...result, scope: "project", root }, () => planLines(context, "codex", root, result.changes));
}
