// createArchive packs the live state (phase.json, execution.json, events.jsonl, memory/reports/)
// into memory/state/.archive/<workflow_id>_<yyyyMMddTHHmmssZ>.tar.gz, manifest first.
//
// Guarantees:
// - Under kill -9 at any moment, every `*.tar.gz` in .archive/ is a complete archive: the tar is
//   written to `.partial-…partial`, fsynced, and only then hard-linked to its final name (and the
//   folder fsynced). Leftover temp files and folders start with "." and are swept by pruneArchives.
// - An existing archive is never overwritten: the final name is taken with link(), which fails
//   if the name exists; a second archive within the same second gets `-2`, `-3`, ….
// - The manifest's checksums match the archived bytes even when an agent rewrites a report while
//   we archive: files are first copied into a private staging folder, hashed and packed from there.
// - Live state is only read. Corrupt state is archived as it is (workflow id `unknown` if no file
//   names one). Links, devices and entries restore would refuse are left out and listed in the
//   manifest's `skipped`.
import { constants } from "node:fs";
import { copyFile, link, lstat, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { create as createTar } from "tar";
import { isPhase, PHASE_STATUSES, REPORTS_DIR, STATE_DIR } from "../core/phases.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { decodeJson } from "../schema/common.js";
import { fsyncDir } from "../store/fsync-dir.js";
import {
  assertRealFolders,
  MANIFEST_NAME,
  resolveArchivePaths,
  STATE_FILES,
  type ArchivePaths,
} from "./archive-layout.js";
import { describeArchive, type ArchiveInfo } from "./archive-info.js";
import {
  formatArchiveName,
  formatArchiveTimestamp,
  partialFileName,
  sanitizeWorkflowId,
  TEMP_PREFIX,
} from "./archive-names.js";
import { checkEntry, DEFAULT_LIMITS } from "./entry-policy.js";
import { fsyncFile, isMissing, removeQuietly, sha256File, walkTree } from "./file-tree.js";
import { MANIFEST_FORMAT, type Manifest, type ManifestFile } from "./manifest.js";

export interface CreateArchiveOptions {
  /** Why the archive was made (`--reason`, "before restore of …"); stored in the manifest. */
  readonly reason?: string | null;
  /** The clock, passed in: names the archive and is its created_at. */
  readonly now: Date;
  /**
   * Refuse (`not_archivable`, exit 1, nothing written) when a live entry cannot go into the
   * archive (too big, too deep, a link or special file): what clears the live state afterwards
   * needs everything archived, since it never removes what the archive does not hold.
   */
  readonly complete?: boolean;
}

/** A new archive, with its manifest: what a clear checks the live files against. */
export type CreatedArchive = ArchiveInfo & { readonly manifest: Manifest };

interface LiveEntry {
  /** Relative to the project root, `/`-separated. */
  readonly path: string;
  readonly kind: "file" | "directory";
}

interface Skipped {
  readonly path: string;
  readonly reason: string;
}

/** Highest `-N` tried before giving up: only a runaway loop of archivers could get there. */
const MAX_SEQ = 1000;

/** Returns the new archive, or null when there is no live file to archive. */
export async function createArchive(root: string, options: CreateArchiveOptions): Promise<CreatedArchive | null> {
  const paths = resolveArchivePaths(root);
  assertRealFolders(paths);
  const live = await collectLiveEntries(paths);
  const left = live.skipped[0];
  if (options.complete && left !== undefined) {
    const more = live.skipped.length > 1 ? ` (and ${live.skipped.length - 1} more)` : "";
    throw new DotagentError(
      "not_archivable",
      `${left.path} cannot be archived (${left.reason})${more}, and dotagent never removes what it has not archived; nothing was changed. for the person: move it out of memory/, then run the command again`,
      EXIT.refused,
      { path: left.path, reason: left.reason, skipped: live.skipped },
    );
  }
  if (!live.entries.some((entry) => entry.kind === "file")) return null;

  await mkdir(paths.archiveDir, { recursive: true });
  const random = randomBytes(6).toString("hex");
  const staging = await mkdtemp(join(paths.archiveDir, TEMP_PREFIX.staging));
  let partial: string | null = null;
  try {
    const staged = await stageEntries(root, staging, live.entries);
    if (staged.files.length === 0) return null; // everything vanished while we looked
    const facts = await readWorkflowFacts(staging);
    const timestamp = formatArchiveTimestamp(options.now);
    const createdAt = options.now.toISOString().replace(/\.\d{3}Z$/, "Z");

    for (let seq = 1; seq <= MAX_SEQ; seq += 1) {
      const name = formatArchiveName(facts.idForName, timestamp, seq);
      const final = join(paths.archiveDir, name);
      if (await pathExists(final)) continue;
      const manifest: Manifest = {
        format: MANIFEST_FORMAT,
        name,
        workflow_id: facts.workflowId,
        phase: facts.phase,
        phase_status: facts.phaseStatus,
        created_at: createdAt,
        reason: options.reason ?? null,
        files: staged.files,
        skipped: live.skipped.map((item) => ({ ...item })),
      };
      await writeFile(join(staging, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
      partial = join(paths.archiveDir, partialFileName(name, random));
      await createTar({ file: partial, cwd: staging, gzip: true, portable: true, noDirRecurse: true, strict: true }, [
        MANIFEST_NAME,
        ...staged.paths,
      ]);
      await fsyncFile(partial);
      if (await linkWithoutReplacing(partial, final)) {
        await rm(partial, { force: true }); // gone already if linkWithoutReplacing fell back to rename
        partial = null;
        fsyncDir(paths.archiveDir);
        return { ...describeArchive(name, (await stat(final)).size, manifest), manifest };
      }
      // Another archiver took this name between our check and link(): repack under the next one.
      await rm(partial, { force: true });
      partial = null;
    }
    throw new DotagentError(
      "archive_name_exhausted",
      `More than ${MAX_SEQ} archives named ${facts.idForName}_${timestamp}; for the person: remove some from memory/state/.archive`,
    );
  } finally {
    if (partial !== null) await removeQuietly(partial);
    await removeQuietly(staging);
  }
}

/** What is live, in archive order: state files, then the reports tree, parents before children. */
async function collectLiveEntries(paths: ArchivePaths): Promise<{ entries: LiveEntry[]; skipped: Skipped[] }> {
  const entries: LiveEntry[] = [];
  const skipped: Skipped[] = [];
  let count = 1; // the manifest
  let total = 0;
  const consider = (path: string, type: string, size: number): void => {
    const verdict = checkEntry({ path, type, size }, DEFAULT_LIMITS);
    if (!verdict.ok) return void skipped.push({ path, reason: verdict.reason });
    if (count + 1 > DEFAULT_LIMITS.maxEntries || total + size > DEFAULT_LIMITS.maxTotalSize) {
      return void skipped.push({ path, reason: "over the size or entry limit of one archive" });
    }
    count += 1;
    if (verdict.kind === "file") total += size;
    entries.push({ path, kind: verdict.kind });
  };

  for (const name of STATE_FILES) {
    const item = await lstatOrNull(join(paths.stateDir, name));
    if (item !== null) consider(`${STATE_DIR}/${name}`, item.type, item.size);
  }
  const reports = await lstatOrNull(paths.reportsDir);
  if (reports?.type === "Directory") {
    entries.push({ path: REPORTS_DIR, kind: "directory" });
    count += 1;
    for (const item of await walkTree(paths.reportsDir)) {
      consider(`${REPORTS_DIR}/${item.rel}`, TYPE_OF_KIND[item.kind], item.size);
    }
  }
  return { entries, skipped };
}

const TYPE_OF_KIND = { file: "File", directory: "Directory", symlink: "SymbolicLink", other: "Unsupported" } as const;

async function lstatOrNull(path: string): Promise<{ type: string; size: number } | null> {
  try {
    const item = await lstat(path);
    const kind = item.isFile()
      ? "file"
      : item.isDirectory()
        ? "directory"
        : item.isSymbolicLink()
          ? "symlink"
          : "other";
    return { type: TYPE_OF_KIND[kind], size: item.size };
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * Copies the live entries into `staging` (a reflink where the file system can) and hashes the
 * copies, so the manifest describes exactly the bytes that get packed. Entries removed since
 * they were listed are dropped.
 */
async function stageEntries(
  root: string,
  staging: string,
  entries: readonly LiveEntry[],
): Promise<{ paths: string[]; files: ManifestFile[] }> {
  const paths: string[] = [];
  const files: ManifestFile[] = [];
  for (const entry of entries) {
    const target = join(staging, entry.path);
    if (entry.kind === "directory") {
      await mkdir(target, { recursive: true });
      paths.push(entry.path);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    try {
      await copyFile(join(root, entry.path), target, constants.COPYFILE_FICLONE);
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    paths.push(entry.path);
    files.push({ path: entry.path, size: (await stat(target)).size, sha256: await sha256File(target) });
  }
  return { paths, files };
}

interface WorkflowFacts {
  /** As the state files say, or `unknown`. */
  readonly workflowId: string;
  /** Sanitized for the file name. */
  readonly idForName: string;
  readonly phase: string | null;
  readonly phaseStatus: string | null;
}

/**
 * Reads the workflow id and phase leniently: the state being archived may be corrupt (that is
 * one reason to archive it), so any readable field is used and the rest is null.
 */
async function readWorkflowFacts(staging: string): Promise<WorkflowFacts> {
  const phaseState = await readJsonObject(join(staging, STATE_DIR, "phase.json"));
  const execution = await readJsonObject(join(staging, STATE_DIR, "execution.json"));
  // A file cut short (`head -c 100 … > phase.json`) still names its workflow near the start.
  const cutShort = phaseState === null ? await idInText(join(staging, STATE_DIR, "phase.json")) : undefined;
  const workflowId = [phaseState?.["workflow_id"], execution?.["workflow_id"], cutShort].find(
    (id): id is string => typeof id === "string" && id.trim() !== "",
  );
  const phase = phaseState?.["current_phase"];
  const status = phaseState?.["phase_status"];
  return {
    workflowId: workflowId ?? "unknown",
    idForName: sanitizeWorkflowId(workflowId),
    phase: isPhase(phase) ? phase : null,
    phaseStatus: typeof status === "string" && (PHASE_STATUSES as readonly string[]).includes(status) ? status : null,
  };
}

/** The `"workflow_id": "…"` of a state file that does not parse, or undefined. */
async function idInText(file: string): Promise<string | undefined> {
  try {
    const match = /^\s*\{\s*"workflow_id"\s*:\s*"([^"\\]{1,200})"/.exec((await readFile(file, "utf8")).slice(0, 400));
    return match?.[1];
  } catch {
    return undefined;
  }
}

async function readJsonObject(file: string): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return null;
  }
  const decoded = decodeJson(text);
  if (!decoded.ok || typeof decoded.value !== "object" || decoded.value === null || Array.isArray(decoded.value))
    return null;
  return decoded.value as Record<string, unknown>;
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/**
 * Gives `from` the name `to` unless `to` exists. link() is the atomic test-and-set; on file
 * systems without hard links we fall back to check-then-rename, which only a concurrent archiver
 * (the CLI holds the state lock) could race.
 */
async function linkWithoutReplacing(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
  }
  if (await pathExists(to)) return false;
  await rename(from, to);
  return true;
}
