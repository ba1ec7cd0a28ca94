// `dotagent install --client codex`: dotagent's skills, agents and hooks for the OpenAI Codex CLI,
// in the project (Codex reads them there: test/codex/NOTES.md):
//   .agents/skills/{develop,checkpoint,status}/…   the skills, generated from skills/ (skill-text.ts),
//                                                  with the helper at checkpoint/scripts/dotagent.mjs
//   .codex/agents/<name>.toml                      the agents, generated from agents/*.md (agent-toml.ts)
//   .codex/hooks.json                              dotagent's hook entries, merged (hooks-json.ts)
//   .codex/.dotagent-install.json                  the manifest: each file's sha256, the hook lines
//   .gitignore                                     memory/'s machine-local files (src/claude/gitignore.ts's lines)
// Promises, as the Claude Code install keeps them (the per-file part is src/install/plan-files.ts):
// running it twice changes nothing; a file already there that dotagent did not write is never
// overwritten (`skip`), one someone changed since is kept (`keep`); hooks.json is merged, never
// replaced, and one that does not parse is left alone with nothing installed; `--uninstall`
// removes exactly what the manifest says was added and nobody changed since; nothing outside the
// project is read, written or removed (a manifest entry counts only when it is a file install
// could have written, placed inside the project; the others are reported as `skip`).
import { readFileSync, unlinkSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { DotagentError, EXIT } from "../../core/errors.js";
import { mkdirInside, writeFileInside } from "../../store/write-file.js";
import { readProjectText } from "../../store/read-file.js";
import { codexAgentToml, readAgentMarkdown } from "./agent-toml.js";
import {
  dotagentCommandsIn,
  hasNoHooks,
  olderCodexEntries,
  withDotagentHooks,
  withoutDotagentHooks,
  type HooksFile,
} from "./hooks-json.js";
import { codexReferenceText, codexSkillText } from "./skill-text.js";
import { parseGitignoreOwned, parseOwnedEntries, readManifestJson } from "../../claude/install-manifest.js";
import { lookAt, placeInTarget } from "../../claude/install-paths.js";
import { helperDamage } from "../../install/helper-damage.js";
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

export const CODEX_MANIFEST = ".codex/.dotagent-install.json";
export const CODEX_HOOKS = ".codex/hooks.json";
export const CODEX_HELPER = ".agents/skills/checkpoint/scripts/dotagent.mjs";
/** The CommonJS entry beside the helper, which the hook lines run (SPEC §13 "Start-up"). */
export const CODEX_HOOK_ENTRY = ".agents/skills/checkpoint/scripts/dotagent.cjs";
const SKILLS = ["develop", "checkpoint", "status"] as const;

export type CodexInstallEntry = InstallPlanEntry;

export interface CodexInstallResult {
  client: "codex";
  target: string;
  dry_run: boolean;
  changes: CodexInstallEntry[];
  hooks: "added" | "updated" | "already there" | "removed" | "untouched";
  gitignore: GitignorePlan["outcome"];
}

interface CodexManifest {
  version: 1;
  client: "codex";
  dotagent_version: string;
  files: OwnedFile[];
  hook_commands: string[];
  hooks_created: boolean;
  /** The .gitignore lines install added, and whether it created the file. */
  gitignore: GitignoreOwned | null;
}

const COMMAND = "dotagent install --client codex";

/** Every file a Codex install writes (paths relative to the project), generated from the one source. Pure but for reading `sourceRoot`. */
export function planCodexFiles(
  root: string,
  sourceRoot: string,
  helperScript: Buffer,
  entryScript: Buffer,
): SourceFile[] {
  const files: SourceFile[] = [];
  for (const skill of SKILLS) {
    const skillDir = join(root, ".agents", "skills", skill).split(sep).join("/");
    for (const rel of listFiles(join(sourceRoot, "skills", skill))) {
      // the running CLI and its entry, below
      if (skill === "checkpoint" && (rel === "scripts/dotagent.mjs" || rel === "scripts/dotagent.cjs")) continue;
      const source = readFileSync(join(sourceRoot, "skills", skill, rel), "utf8");
      const text =
        rel === "SKILL.md"
          ? codexSkillText(source, { skillDir })
          : rel.endsWith(".md")
            ? codexReferenceText(source, { skillDir })
            : source;
      files.push({ dest: `.agents/skills/${skill}/${rel}`, bytes: Buffer.from(text) });
    }
  }
  files.push({ dest: CODEX_HELPER, bytes: helperScript, mode: 0o755 });
  files.push({ dest: CODEX_HOOK_ENTRY, bytes: entryScript, mode: 0o755 });
  for (const rel of listFiles(join(sourceRoot, "agents")).filter((f) => f.endsWith(".md") && !f.includes("/"))) {
    const agent = readAgentMarkdown(`agents/${rel}`, readFileSync(join(sourceRoot, "agents", rel), "utf8"));
    files.push({ dest: `.codex/agents/${agent.name}.toml`, bytes: Buffer.from(codexAgentToml(agent)) });
  }
  return files;
}

/** The manifest, parsed and not trusted: only entries install could have written are kept, the others reported. */
function readManifest(
  root: string,
  planned: readonly string[],
): { manifest: CodexManifest; ignored: InstallPlanEntry[] } | undefined {
  const value = readManifestJson(join(root, CODEX_MANIFEST));
  if (value === null) return undefined;
  const ours = (p: string) =>
    planned.includes(p) ||
    /^\.agents\/skills\/(develop|checkpoint|status)\/[\w./-]+$|^\.codex\/agents\/[\w-]+\.toml$/.test(p)
      ? null
      : "is not a file dotagent installs for Codex";
  const { files, ignored } = parseOwnedEntries({ files: value.files }, ours);
  const manifest: CodexManifest = {
    version: 1,
    client: "codex",
    dotagent_version: String(value.dotagent_version ?? ""),
    files,
    hook_commands: Array.isArray(value.hook_commands)
      ? value.hook_commands.filter((c): c is string => typeof c === "string")
      : [],
    hooks_created: value.hooks_created === true,
    // Only lines install could have added are ever taken out again.
    gitignore: parseGitignoreOwned(value.gitignore),
  };
  return { manifest, ignored: ignoredChanges(ignored) };
}

/**
 * .codex/ and .agents/ (and the files install writes there whole: hooks.json, the manifest) are
 * the project's own: a link on the way that leads out of the project stops the install, the
 * uninstall and the reading of hooks.json, before anything is read or written through it.
 */
function assertInsideProject(root: string): void {
  for (const rel of [CODEX_HOOKS, CODEX_MANIFEST, ".agents/skills"]) {
    const placed = placeInTarget(root, rel);
    if (!placed.ok)
      throw new DotagentError(
        "install_target_invalid",
        `${join(root, rel)} ${placed.reason.replace("install folder", "project")}; dotagent installs for Codex only into the project's own .codex and .agents folders: replace the link with a folder (dotagent changed nothing)`,
        EXIT.refused,
        { path: join(root, rel) },
      );
  }
}

/** hooks.json parsed (undefined: none); one that does not parse stops the install before anything is written. */
function readHooksFile(root: string): HooksFile | undefined {
  assertInsideProject(root);
  const file = join(root, CODEX_HOOKS);
  const read = readProjectText(file, { maxBytes: 64 * 1024 * 1024, links: "refuse" });
  if (read.kind === "missing") return undefined;
  if (read.kind === "refused")
    throw new DotagentError(
      "install_target_invalid",
      `${file} ${read.reason}; move it out of the way and run \`${COMMAND}\` again`,
      EXIT.refused,
      { path: file },
    );
  try {
    const value = JSON.parse(read.text) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not a JSON object");
    return value as HooksFile;
  } catch (error) {
    throw new DotagentError(
      "hooks_invalid",
      `${file} is not valid JSON (${(error as Error).message}); fix it and run \`${COMMAND}\` again (dotagent changed nothing)`,
      EXIT.refused,
      { file },
    );
  }
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function write(root: string, rel: string, bytes: Buffer | string): void {
  mkdirInside(root, dirname(join(root, rel)));
  writeFileInside(root, join(root, rel), bytes);
}

export interface CodexInstallOptions {
  root: string;
  sourceRoot: string;
  helperScript: Buffer;
  entryScript: Buffer;
  dryRun: boolean;
  version: string;
}

export function installCodex(options: CodexInstallOptions): CodexInstallResult {
  const { root, dryRun } = options;
  assertInsideProject(root);
  const planned = planCodexFiles(root, options.sourceRoot, options.helperScript, options.entryScript);
  const read = readManifest(
    root,
    planned.map((f) => f.dest),
  );
  const manifest = read?.manifest;
  const hooksBefore = readHooksFile(root);
  const files = planInstallFiles(root, planned, manifest?.files ?? [], COMMAND);
  const helper = join(root, CODEX_HOOK_ENTRY).split(sep).join("/");
  const hooksAfter = withDotagentHooks(hooksBefore ?? {}, helper);
  const sameHooks = hooksBefore !== undefined && JSON.stringify(hooksBefore) === JSON.stringify(hooksAfter);
  const hadOurs = hooksBefore !== undefined && dotagentCommandsIn(hooksBefore).length > 0;
  const hooks: CodexInstallResult["hooks"] = sameHooks ? "already there" : hadOurs ? "updated" : "added";
  const gitignoreFile = join(root, ".gitignore");
  const gitignore = planGitignoreMerge(root, gitignoreFile, manifest?.gitignore ?? null, COMMAND);
  const changes: InstallPlanEntry[] = [
    ...(read?.ignored ?? []),
    ...files.changes,
    { action: sameHooks ? "unchanged" : hooksBefore === undefined ? "create" : "update", path: CODEX_HOOKS },
    ...(gitignore.change ? [gitignore.change] : []),
  ];
  if (!dryRun) {
    applyFilePlan(root, files);
    if (!sameHooks) write(root, CODEX_HOOKS, json(hooksAfter));
    applyGitignore(gitignoreFile, gitignore);
    const next: CodexManifest = {
      version: 1,
      client: "codex",
      dotagent_version: options.version,
      files: files.owned,
      hook_commands: dotagentCommandsIn(hooksAfter),
      hooks_created: manifest?.hooks_created ?? hooksBefore === undefined,
      gitignore: gitignore.owned,
    };
    write(root, CODEX_MANIFEST, json(next));
  }
  return { client: "codex", target: root, dry_run: dryRun, changes, hooks, gitignore: gitignore.outcome };
}

export function uninstallCodex(options: { root: string; dryRun: boolean }): CodexInstallResult {
  const { root, dryRun } = options;
  assertInsideProject(root);
  const read = readManifest(root, []);
  if (read === undefined)
    return { client: "codex", target: root, dry_run: dryRun, changes: [], hooks: "untouched", gitignore: "untouched" };
  const { manifest } = read;
  const files = planUninstallFiles(root, manifest.files);
  const changes: InstallPlanEntry[] = [...read.ignored, ...files.changes];
  let hooks: CodexInstallResult["hooks"] = "untouched";
  const before = readHooksFile(root);
  const after =
    before !== undefined && dotagentCommandsIn(before).length > 0 ? withoutDotagentHooks(before) : undefined;
  const dropHooks = after !== undefined && manifest.hooks_created && hasNoHooks(after);
  if (after !== undefined) {
    hooks = "removed";
    changes.push({ action: dropHooks ? "remove" : "update", path: CODEX_HOOKS });
  }
  const gitignoreFile = join(root, ".gitignore");
  const gitignore = planGitignoreUnmerge(root, gitignoreFile, manifest.gitignore, COMMAND);
  if (gitignore.change) changes.push(gitignore.change);
  changes.push({ action: "remove", path: CODEX_MANIFEST });
  // Folders install made and left empty now, deepest first; never the project's own.
  const dirs = [".agents/skills", ".codex/agents", ".agents", ".codex"];
  for (const f of manifest.files)
    for (let d = dirname(f.path); d !== "." && d !== ".agents" && d !== ".codex"; d = dirname(d)) dirs.push(d);
  const folders = planFolderRemoval(root, dirs);
  changes.push(...folders.changes);
  if (!dryRun) {
    applyFilePlan(root, files);
    if (dropHooks) unlinkSync(join(root, CODEX_HOOKS));
    else if (after !== undefined) write(root, CODEX_HOOKS, json(after));
    applyGitignore(gitignoreFile, gitignore);
    unlinkSync(join(root, CODEX_MANIFEST));
    removeEmptyFolders(folders.folders);
  }
  return { client: "codex", target: root, dry_run: dryRun, changes, hooks, gitignore: gitignore.outcome };
}

/** What `dotagent doctor --client codex` reads: which planned files are there as installed. */
export function codexInstallState(root: string): {
  manifest: boolean;
  missing: string[];
  changed: string[];
  helperDamage: string | null;
  hooks: string[];
  olderHooks: string[];
} {
  const read = readManifest(root, []);
  const missing: string[] = [];
  const changed: string[] = [];
  let damage: string | null = null;
  for (const f of read?.manifest.files ?? []) {
    const found = lookAt(root, f.path);
    if (found.kind !== "file") missing.push(f.path);
    else if (found.hash !== f.sha256) {
      // A helper that cannot run is named as such, not as an edit (src/install/helper-damage.ts).
      const damaged = f.path === CODEX_HELPER ? helperDamage(found.bytes) : null;
      if (damaged !== null) damage = damaged;
      else changed.push(f.path);
    }
  }
  let hooks: string[] = [];
  let olderHooks: string[] = [];
  try {
    const file = readHooksFile(root);
    hooks = file === undefined ? [] : dotagentCommandsIn(file);
    olderHooks = file === undefined ? [] : olderCodexEntries(file);
  } catch {
    hooks = [];
  }
  return { manifest: read !== undefined, missing, changed, helperDamage: damage, hooks, olderHooks };
}

export const relativeTo = (root: string, path: string) => relative(root, path).split(sep).join("/");
