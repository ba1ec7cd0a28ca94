import { assertStatePaths } from "../../store/state-paths.js";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdirInside } from "../../store/write-file.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { VERSION } from "../version.js";
import { loadCold } from "../load-cold.js";
import { clientAdapter } from "../client-option.js";
import type { InstallScope } from "../../clients/adapter.js";
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
  summary:
    "set up a project for Claude Code (.claude/), GitHub Copilot CLI (.github/) or Codex CLI (.agents/, .codex/): /develop, the agents, the hooks",
  positionals: "none",
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
    // One path for every client (src/clients/index.ts): its scopes, its install from the cold half.
    const client = clientAdapter(context);
    const scope = (stringOption(context, "scope") ?? "project") as InstallScope;
    if (!client.scopes.includes(scope))
      throw usageError(client.scopeRefusal ?? `--scope takes ${client.scopes.join(" or ")}, not "${scope}"`);
    const { findSourceRoot, CLIENT_PARTS } = await loadCold();
    const parts = CLIENT_PARTS[client.id];
    const dryRun = context.options["dry-run"] === true;
    const root = context.paths.root;
    // memory/ a file or a link would fail half-way through the install: refuse first.
    if (scope === "project") assertStatePaths(context.paths);
    let outcome;
    if (context.options.uninstall) {
      outcome = parts.uninstall({ root, scope, dryRun });
    } else {
      const self = fileURLToPath(import.meta.url);
      const sourceRoot = findSourceRoot(dirname(self));
      outcome = parts.install({
        root,
        scope,
        dryRun,
        sourceRoot,
        helperScript: readFileSync(self),
        entryScript: entryBeside(self),
        version: VERSION,
      });
      // The empty memory/ layout (memory-template/), so the hook and the skills find the project.
      if (scope === "project" && !dryRun)
        for (const dir of memoryLayout(sourceRoot)) mkdirInside(root, join(root, dir));
    }
    const { result } = outcome;
    // A client with several scopes names the scope in the plan's head; a one-scope client, itself.
    const what = client.scopes.length > 1 ? scope : client.id;
    return done(
      context,
      { ...result, root },
      () => planLines(context, what, result.target, result.changes),
      outcome.notes,
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
 * Prints an install's result: `--json` with `commit_paths` added (the paths to commit, relative to
 * the project; [] for a user install, a dry run or --uninstall); plain, the plan's lines, the
 * client's notes, then (an install that wrote) what was done in plain words and what to do next.
 */
async function done(
  context: CommandContext,
  result: InstallDone & Record<string, unknown>,
  plan: () => string[],
  notes: readonly string[],
): Promise<number> {
  const { commitPaths, installClosing, uncommittedPaths } = await loadCold();
  const closing = !context.options.uninstall && context.options["dry-run"] !== true;
  const paths = closing ? commitPaths(result) : [];
  context.out.result({ ...result, root: undefined, commit_paths: paths }, () => [
    ...plan(),
    ...notes,
    ...(closing ? installClosing(result, uncommittedPaths(result.root, paths), process.cwd()) : []),
  ]);
  return 0;
}

/** dotagent.cjs beside the running helper (the build writes one beside each copy; SPEC §13 "Start-up"). */
function entryBeside(helper: string): Buffer {
  const entry = helper.replace(/\.mjs$/, ".cjs");
  try {
    if (entry !== helper) return readFileSync(entry);
  } catch {
    // said below
  }
  throw new DotagentError(
    "install_source_missing",
    `${entry} is missing beside ${helper} (the hooks run it); reinstall the dotagent package`,
    EXIT.refused,
  );
}
