// The per-file part of `dotagent install`, shared by the three clients (Claude Code, Copilot CLI,
// Codex CLI; SPEC §11, §22): given the install folder (`target`), the files this version ships and
// the files the manifest says dotagent wrote (with their sha256), plan what to do to each, then
// carry the plan out. Promises, for every client alike:
// - running it twice changes nothing (a file with the bytes it would write is `unchanged`);
// - a file already there that dotagent did not write is never overwritten (`skip`);
// - an upgrade replaces only files nobody changed since (their sha256 in the manifest), keeps
//   edited ones (`keep`), removes unchanged files the new version no longer ships;
// - `--uninstall` removes the owned files nobody changed since, keeps edited ones;
// - every path is placed inside `target` first (install-paths.ts): an entry that leads out (a
//   link on the way, a FIFO) is reported (`skip`, with the reason) and never read, written,
//   removed or followed;
// - planning reads only; nothing is written until `applyFilePlan` (so `--dry-run` writes nothing),
//   and every write goes through write-file.ts (never through a link that leads out of the target);
// - the project's .gitignore gets dotagent's lines merged in, and exactly those taken out again; a
//   .gitignore that is a link is followed only while it leads to a file inside the project.
import { existsSync, rmdirSync, unlinkSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { globbySync } from "globby";
import { DotagentError, EXIT } from "../core/errors.js";
import { mkdirInside, writeFileInside } from "../store/write-file.js";
import { readProjectText } from "../store/read-file.js";
import { GITIGNORE_LINES, mergeGitignore, unmergeGitignore } from "../claude/gitignore.js";
import { lookAt, placeInTarget, sha256, showEntry, type Found } from "../claude/install-paths.js";
import { helperDamage, isHelper } from "./helper-damage.js";

/** One line of an install's result (`changes` in `--json`); `path` is relative to the target. */
export interface InstallPlanEntry {
  action: "create" | "update" | "unchanged" | "skip" | "remove" | "keep";
  path: string;
  reason?: string;
}

export interface SourceFile {
  /** Path under the target, `/`-separated, like skills/checkpoint/SKILL.md. */
  readonly dest: string;
  readonly bytes: Buffer;
  readonly mode?: number;
}

export interface OwnedFile {
  path: string;
  sha256: string;
}

export interface FilePlan {
  readonly changes: InstallPlanEntry[];
  /** Files to write (create or update). */
  readonly writes: readonly SourceFile[];
  /** Absolute paths to unlink (placed inside the target when planned). */
  readonly removals: readonly string[];
  /** The manifest's files once the plan is carried out, sorted by path. */
  readonly owned: OwnedFile[];
}

/** The dotagent version's files below `dir`, relative with `/`, sorted: no hidden files, no editor leftovers. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return globbySync("**/*", { cwd: dir, onlyFiles: true, dot: false, ignore: ["**/*~", "**/*.swp"] }).sort();
}

/** The manifest entries left out (out of the folder, not dotagent's), as changes that say so. */
export function ignoredChanges(ignored: ReadonlyArray<{ path: string; reason: string }> = []): InstallPlanEntry[] {
  return ignored.map((entry) => ({ action: "skip", path: entry.path, reason: entry.reason }));
}

/** lookAt, with the reason completed for a change line. */
function look(target: string, rel: string): Found {
  const found = lookAt(target, rel);
  return found.kind === "refused" ? { kind: "refused", reason: `${found.reason}: left alone` } : found;
}

/**
 * Plans an install or upgrade. `command` is how the person runs this install again
 * (`dotagent install --client copilot`), for the reason of an edited file.
 */
export function planInstallFiles(
  target: string,
  sources: readonly SourceFile[],
  ownedBefore: readonly OwnedFile[],
  command: string,
): FilePlan {
  const owned = new Map(ownedBefore.map((f) => [f.path, f.sha256]));
  const changes: InstallPlanEntry[] = [];
  const writes: SourceFile[] = [];
  const removals: string[] = [];
  for (const file of sources) {
    const hash = sha256(file.bytes);
    const found = look(target, file.dest);
    if (found.kind === "refused") {
      changes.push({ action: "skip", path: file.dest, reason: found.reason });
      continue;
    }
    if (found.kind === "file") {
      if (found.hash === hash) {
        changes.push({ action: "unchanged", path: file.dest });
        if (!owned.has(file.dest)) owned.set(file.dest, hash);
        continue;
      }
      // An upgrade replaces only what dotagent wrote and nobody changed since (the manifest's hash).
      const before = owned.get(file.dest);
      if (before === undefined) {
        changes.push({
          action: "skip",
          path: file.dest,
          reason: "exists and was not installed by dotagent: left alone",
        });
        continue;
      }
      // A helper that cannot run is nobody's edit (helper-damage.ts): it is replaced, and says why.
      const damage = before !== found.hash && isHelper(file.bytes) ? helperDamage(found.bytes) : null;
      if (damage !== null) {
        changes.push({
          action: "update",
          path: file.dest,
          reason: `the helper is cut short or edited (${damage}): replaced`,
        });
        owned.set(file.dest, hash);
        writes.push(file);
        continue;
      }
      if (before !== found.hash) {
        changes.push({
          action: "keep",
          path: file.dest,
          reason: `edited since dotagent installed it: kept; to take this version's copy, move yours away and run \`${command}\` again`,
        });
        continue;
      }
    }
    changes.push({ action: found.kind === "file" ? "update" : "create", path: file.dest });
    owned.set(file.dest, hash);
    writes.push(file);
  }
  // Files an older version installed that this one no longer ships.
  const shipped = new Set(sources.map((f) => f.dest));
  for (const [path, hash] of [...owned]) {
    if (shipped.has(path)) continue;
    const found = look(target, path);
    if (found.kind === "missing") {
      owned.delete(path);
    } else if (found.kind === "refused") {
      changes.push({ action: "skip", path: showEntry(path), reason: found.reason });
    } else if (found.hash === hash) {
      changes.push({ action: "remove", path, reason: "no longer part of dotagent" });
      owned.delete(path);
      removals.push(found.path);
    } else {
      changes.push({
        action: "keep",
        path,
        reason: "no longer part of dotagent, but edited since it was installed: kept",
      });
    }
  }
  return {
    changes,
    writes,
    removals,
    owned: [...owned].map(([path, sha]) => ({ path, sha256: sha })).sort((a, b) => a.path.localeCompare(b.path)),
  };
}

/** Plans `--uninstall`: the owned files nobody changed since are removed; edited ones kept. */
export function planUninstallFiles(
  target: string,
  owned: readonly OwnedFile[],
): Pick<FilePlan, "changes" | "removals"> {
  const changes: InstallPlanEntry[] = [];
  const removals: string[] = [];
  for (const file of owned) {
    const found = look(target, file.path);
    if (found.kind === "missing") continue;
    if (found.kind === "refused") changes.push({ action: "skip", path: showEntry(file.path), reason: found.reason });
    else if (found.hash !== file.sha256)
      changes.push({ action: "keep", path: file.path, reason: "edited since dotagent installed it: left alone" });
    else {
      changes.push({ action: "remove", path: file.path });
      removals.push(found.path);
    }
  }
  return { changes, removals };
}

/** What the install folder is called in a refusal (write-file.ts), as install-paths.ts calls it. */
const WITHIN = { within: "the install folder" };

/**
 * Carries a plan out; returns the folders it created under the target (relative, `/`), for the
 * manifest's `dirs`. Every file and folder is written inside the target (a link that stays inside
 * it is followed, as planning placed it).
 */
export function applyFilePlan(
  target: string,
  plan: { readonly writes?: readonly SourceFile[]; readonly removals: readonly string[] },
): string[] {
  const created: string[] = [];
  for (const file of plan.writes ?? []) {
    const dest = join(target, file.dest);
    for (let dir = dirname(dest); dir !== target && dir.startsWith(target) && !existsSync(dir); dir = dirname(dir))
      created.push(relative(target, dir).split(sep).join("/"));
    mkdirInside(target, dirname(dest), WITHIN);
    writeFileInside(target, dest, file.bytes, {
      ...WITHIN,
      link: "inside",
      ...(file.mode === undefined ? {} : { mode: file.mode }),
    });
  }
  for (const path of plan.removals) unlinkSync(path);
  return created;
}

/** The folders to try removing after an uninstall, deepest first, each placed inside the target; the others reported. */
export function planFolderRemoval(
  target: string,
  dirs: readonly string[],
): { changes: InstallPlanEntry[]; folders: string[] } {
  const depth = (d: string) => (d === "." ? 0 : d.split("/").length);
  const changes: InstallPlanEntry[] = [];
  const folders: string[] = [];
  for (const dir of [...new Set(dirs)].sort((a, b) => depth(b) - depth(a))) {
    const placed = placeInTarget(target, dir);
    if (placed.ok) folders.push(placed.path);
    else changes.push({ action: "skip", path: showEntry(dir), reason: `${placed.reason}: left alone` });
  }
  return { changes, folders };
}

/** Removes each folder that is empty now; one that is not (something else lives there) stays. */
export function removeEmptyFolders(folders: readonly string[]): void {
  for (const folder of folders) {
    try {
      rmdirSync(folder);
    } catch {
      // not empty, not there, or not a folder: it stays
    }
  }
}

/** dotagent's lines in the project's .gitignore, as a manifest records them. */
export interface GitignoreOwned {
  lines: string[];
  created: boolean;
}

export interface GitignorePlan {
  outcome: "lines added" | "lines updated" | "lines already there" | "lines removed" | "untouched";
  change: InstallPlanEntry | null;
  /** The new text to write, null to remove the file, undefined: leave it. */
  text: string | null | undefined;
  /** What the manifest records after the plan is carried out. */
  owned: GitignoreOwned | null;
}

/**
 * A .gitignore's text (null: none), or a one-line refusal naming it. The project's .gitignore sits
 * at its root: a link there is followed only while it leads to a file inside the project (a clone
 * can carry one that leads to ~/.bashrc or /etc/passwd).
 */
export function readGitignore(file: string, command: string): string | null {
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "inside", root: dirname(file) });
  if (read.kind === "missing") return null;
  if (read.kind === "refused")
    throw new DotagentError(
      "gitignore_invalid",
      `${file} ${read.reason}; fix it (dotagent changed nothing) and run \`${command}\` again`,
      EXIT.refused,
      { file },
    );
  return read.text;
}

/** Plans merging dotagent's lines into the .gitignore at `file` (its change path relative to `target`). */
export function planGitignoreMerge(
  target: string,
  file: string,
  before: GitignoreOwned | null,
  command: string,
): GitignorePlan {
  const text = readGitignore(file, command);
  const path = relative(target, file).split(sep).join("/");
  const merge = mergeGitignore(text, GITIGNORE_LINES, before?.lines ?? []);
  const owned = merge.owned.length === 0 ? null : { lines: merge.owned, created: before?.created ?? text === null };
  if (!merge.changed)
    return { outcome: "lines already there", change: { action: "unchanged", path }, text: undefined, owned };
  return {
    outcome: (before?.lines.length ?? 0) > 0 ? "lines updated" : "lines added",
    change: { action: text === null ? "create" : "update", path },
    text: merge.text,
    owned,
  };
}

/** Plans taking dotagent's lines out of the .gitignore at `file` again (the file too when install created it and nothing is left). */
export function planGitignoreUnmerge(
  target: string,
  file: string,
  before: GitignoreOwned | null,
  command: string,
): GitignorePlan {
  const untouched: GitignorePlan = { outcome: "untouched", change: null, text: undefined, owned: before };
  if (before === null || before.lines.length === 0) return untouched;
  const text = readGitignore(file, command);
  if (text === null) return untouched;
  const next = unmergeGitignore(text, before.lines, before.created);
  if (next === text) return untouched;
  return {
    outcome: "lines removed",
    change: { action: next === null ? "remove" : "update", path: relative(target, file).split(sep).join("/") },
    text: next,
    owned: null,
  };
}

export function applyGitignore(file: string, plan: GitignorePlan): void {
  if (plan.text === null) unlinkSync(file);
  else if (plan.text !== undefined) writeFileInside(dirname(file), file, plan.text, { link: "inside" });
}
