// `dotagent install --client copilot`: the skills (with the helper), the agents and the hooks where
// GitHub Copilot CLI reads them, all under the project's .github/ folder:
//
//   .github/skills/<name>/…                 skills/ (SKILL.md through skill-text.ts), the helper in
//                                           skills/checkpoint/scripts/dotagent.mjs
//   .github/agents/<name>.agent.md          agents/<name>.md (Copilot prefers these over .claude/agents)
//   .github/hooks/dotagent.json             Copilot's hooks (`version: 1`), each `--client copilot`
//   .github/.dotagent-copilot-install.json  the manifest: each file's sha256, the folders created
//
// Promises: every client's (src/install/plan-files.ts: twice changes nothing, not ours: skip,
// edited: keep, `--uninstall` removes only what nobody changed); nothing outside .github/ is read,
// written or removed whatever the manifest says, except the project's .gitignore, where
// dotagent's lines for memory/'s machine-local files are merged (and taken out again).
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../../core/errors.js";
import { mkdirInside, writeFileInside } from "../../store/write-file.js";
import { parseGitignoreOwned, parseOwnedEntries, readManifestJson } from "../../claude/install-manifest.js";
import { placeInTarget } from "../../claude/install-paths.js";
import {
  applyFilePlan,
  applyGitignore,
  ignoredChanges,
  listFiles,
  planFolderRemoval,
  planGitignoreMerge,
  planGitignoreUnmerge,
  planInstallFiles,
  planUninstallFiles,
  removeEmptyFolders,
  type GitignoreOwned,
  type GitignorePlan,
  type InstallPlanEntry,
  type OwnedFile,
  type SourceFile,
} from "../../install/plan-files.js";
import { copilotSkillText } from "./skill-text.js";
import { copilotHooksFile, HOOKS_FILE } from "./hooks-file.js";

export const COPILOT_MANIFEST = ".dotagent-copilot-install.json";
export const HELPER = "skills/checkpoint/scripts/dotagent.mjs";
/** The CommonJS entry beside the helper, which the hook lines run (SPEC §13 "Start-up"). */
export const HOOK_ENTRY = "skills/checkpoint/scripts/dotagent.cjs";

export interface CopilotManifest {
  version: 1;
  client: "copilot";
  dotagent_version: string;
  files: OwnedFile[];
  dirs: string[];
  /** dotagent's lines in the project's .gitignore, and whether install created the file. */
  gitignore: GitignoreOwned | null;
}

export interface CopilotInstallResult {
  client: "copilot";
  scope: "project";
  target: string;
  dry_run: boolean;
  changes: InstallPlanEntry[];
  hooks: "added" | "updated" | "already there" | "removed" | "untouched";
  gitignore: GitignorePlan["outcome"];
}

/** The files a Copilot install writes under .github/, generated from the one source. Pure but for reading the sources. */
export function copilotSources(
  sourceRoot: string,
  helperScript: Buffer,
  target: string,
  entryScript: Buffer,
): SourceFile[] {
  const files: SourceFile[] = [];
  for (const rel of listFiles(join(sourceRoot, "skills"))) {
    const dest = `skills/${rel}`;
    if (dest === HELPER || dest === HOOK_ENTRY) continue;
    const bytes = readFileSync(join(sourceRoot, "skills", rel));
    const skill = /^skills\/([^/]+)\/SKILL\.md$/.exec(dest)?.[1];
    files.push({
      dest,
      bytes:
        skill === undefined
          ? bytes
          : Buffer.from(copilotSkillText(bytes.toString("utf8"), { skillDir: join(target, "skills", skill) })),
    });
  }
  files.push({ dest: HELPER, bytes: helperScript, mode: 0o755 });
  files.push({ dest: HOOK_ENTRY, bytes: entryScript, mode: 0o755 });
  for (const rel of listFiles(join(sourceRoot, "agents"))) {
    if (rel.endsWith(".md") && !rel.includes("/"))
      files.push({
        dest: `agents/${rel.replace(/\.md$/, ".agent.md")}`,
        bytes: readFileSync(join(sourceRoot, "agents", rel)),
      });
  }
  files.push({ dest: HOOKS_FILE, bytes: Buffer.from(copilotHooksFile(join(target, HOOK_ENTRY))) });
  return files;
}

/** The manifest in .github/, parsed, its entries that are not plain paths inside .github/ dropped with why. */
export function readCopilotManifest(target: string): { manifest: CopilotManifest; ignored: InstallPlanEntry[] } | null {
  const value = readManifestJson(join(target, COPILOT_MANIFEST));
  if (value === null || value.version !== 1 || value.client !== "copilot") return null;
  const { files, dirs, ignored } = parseOwnedEntries(value);
  const gitignore = parseGitignoreOwned(value.gitignore);
  return {
    manifest: {
      version: 1,
      client: "copilot",
      dotagent_version: String(value.dotagent_version ?? ""),
      files,
      dirs,
      gitignore,
    },
    ignored: ignoredChanges(ignored),
  };
}

const COMMAND = "dotagent install --client copilot";

function assertTarget(root: string, target: string): void {
  const placed = placeInTarget(root, ".github");
  if (!placed.ok)
    throw new DotagentError(
      "install_target_invalid",
      `${target} ${placed.reason}; dotagent installs only into the project's own .github folder: replace the link with a folder`,
      EXIT.refused,
      { path: target },
    );
}

export interface CopilotInstallOptions {
  root: string;
  sourceRoot: string;
  helperScript: Buffer;
  entryScript: Buffer;
  dryRun: boolean;
  version: string;
}

export function installCopilot(options: CopilotInstallOptions): CopilotInstallResult {
  const { root, dryRun } = options;
  const target = join(root, ".github");
  assertTarget(root, target);
  const read = readCopilotManifest(target);
  const manifest: CopilotManifest = read?.manifest ?? {
    version: 1,
    client: "copilot",
    dotagent_version: options.version,
    files: [],
    dirs: [],
    gitignore: null,
  };
  const files = planInstallFiles(
    target,
    copilotSources(options.sourceRoot, options.helperScript, target, options.entryScript),
    manifest.files,
    COMMAND,
  );
  const action = files.changes.find((c) => c.path === HOOKS_FILE)?.action;
  const hooks: CopilotInstallResult["hooks"] =
    action === "create"
      ? "added"
      : action === "update"
        ? "updated"
        : action === "unchanged"
          ? "already there"
          : "untouched";
  // The project's .gitignore: dotagent's lines for memory/'s machine-local files.
  const gitignoreFile = join(root, ".gitignore");
  const gitignore = planGitignoreMerge(target, gitignoreFile, manifest.gitignore, COMMAND);
  const changes: InstallPlanEntry[] = [
    ...(read?.ignored ?? []),
    ...files.changes,
    ...(gitignore.change ? [gitignore.change] : []),
  ];
  if (!dryRun) {
    if (!existsSync(target)) {
      mkdirInside(root, target);
      if (!manifest.dirs.includes(".")) manifest.dirs.push(".");
    }
    for (const dir of applyFilePlan(target, files)) if (!manifest.dirs.includes(dir)) manifest.dirs.push(dir);
    applyGitignore(gitignoreFile, gitignore);
    const next: CopilotManifest = {
      ...manifest,
      dotagent_version: options.version,
      files: files.owned,
      gitignore: gitignore.owned,
    };
    writeFileInside(root, join(target, COPILOT_MANIFEST), `${JSON.stringify(next, null, 2)}\n`);
  }
  return { client: "copilot", scope: "project", target, dry_run: dryRun, changes, hooks, gitignore: gitignore.outcome };
}
export function uninstallCopilot(options: { root: string; dryRun: boolean }): CopilotInstallResult {
  const target = join(options.root, ".github");
  assertTarget(options.root, target);
  const read = readCopilotManifest(target);
  if (read === null)
    throw new DotagentError(
      "not_installed",
      `dotagent is not installed for Copilot in ${target} (no ${COPILOT_MANIFEST}); nothing to remove`,
      EXIT.refused,
    );
  const { manifest } = read;
  const files = planUninstallFiles(target, manifest.files);
  const hooks: CopilotInstallResult["hooks"] = files.changes.some((c) => c.path === HOOKS_FILE && c.action === "remove")
    ? "removed"
    : "untouched";
  const gitignoreFile = join(options.root, ".gitignore");
  const gitignore = planGitignoreUnmerge(target, gitignoreFile, manifest.gitignore, COMMAND);
  const folders = planFolderRemoval(target, manifest.dirs);
  const changes: InstallPlanEntry[] = [
    ...read.ignored,
    ...files.changes,
    ...(gitignore.change ? [gitignore.change] : []),
    { action: "remove", path: COPILOT_MANIFEST },
    ...folders.changes,
  ];
  if (!options.dryRun) {
    applyFilePlan(target, files);
    applyGitignore(gitignoreFile, gitignore);
    unlinkSync(join(target, COPILOT_MANIFEST));
    removeEmptyFolders(folders.folders);
  }
  return {
    client: "copilot",
    scope: "project",
    target,
    dry_run: options.dryRun,
    changes,
    hooks,
    gitignore: gitignore.outcome,
  };
}
