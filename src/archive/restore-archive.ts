// restoreArchive brings an archived workflow back as the live state.
//
// Guarantees:
// - A refused restore changes nothing: every entry is checked (entry-policy.ts) before anything
//   is written, extraction goes into a fresh `.restore-*` folder (never onto the live tree, so
//   no existing link can redirect a write), the extracted tree is compared with the scan and the
//   manifest, and phase.json / execution.json must pass their schemas. Only then is the live
//   state touched; the temp folder is removed on every path.
// - The live state is archived (createArchive, reason "before restore of NAME") before it is
//   cleared, so a restore never loses work. If the final moves fail part-way, the error names
//   that archive.
// - Restored files are fsynced before they are renamed into place, phase.json last, and the
//   folders fsynced after. The restored archive itself is kept (restore never prunes).
import { chmod, cp, lstat, mkdir, mkdtemp, readFile, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ReadEntry, Unpack } from "tar";
import { DotagentError, EXIT } from "../core/errors.js";
import { REPORTS_DIR, STATE_DIR } from "../core/phases.js";
import { decodeJson, type SchemaProblem } from "../schema/common.js";
import { parseExecutionState } from "../schema/execution.js";
import { parsePhaseState } from "../schema/phase.js";
import { fsyncDir } from "../store/fsync-dir.js";
import { forget } from "../store/last-write.js";
import {
  ARCHIVE_DIR,
  assertRealFolders,
  MANIFEST_NAME,
  resolveArchivePaths,
  STATE_FILES,
  type ArchivePaths,
} from "./archive-layout.js";
import { describeArchive, describeArchiveWithoutManifest, type ArchiveInfo } from "./archive-info.js";
import { isPlainArchiveFileName, TEMP_PREFIX } from "./archive-names.js";
import { clearLiveState } from "./clear-live-state.js";
import { createArchive } from "./create-archive.js";
import { checkEntry, resolveLimits, type ArchiveLimits } from "./entry-policy.js";
import { fsyncTree, isMissing, removeQuietly, sha256File, walkTree } from "./file-tree.js";
import type { Manifest } from "./manifest.js";
import { listAncestors, scanArchive, type ScannedEntry } from "./read-archive.js";
import { maxInflatedBytes, pumpTarGz } from "./pump-tar.js";

export interface RestoreArchiveOptions {
  /** The clock, for the archive of the live state made before restoring. */
  readonly now: Date;
  /** Lower limits than DEFAULT_LIMITS (tests; cautious callers). */
  readonly limits?: Partial<ArchiveLimits>;
}

export interface RestoreResult {
  readonly restored: ArchiveInfo;
  /** The archive of the live state made first; null when there was no live state. */
  readonly archivedLive: ArchiveInfo | null;
}

export async function restoreArchive(
  root: string,
  name: string,
  options: RestoreArchiveOptions,
): Promise<RestoreResult> {
  const paths = resolveArchivePaths(root);
  const limits = resolveLimits(options.limits);
  assertRealFolders(paths);
  const file = await findArchive(paths, name);
  const size = (await lstat(file)).size;

  const scan = await scanArchive(file, limits);
  if (!scan.ok) {
    throw scan.problem === "unsafe"
      ? unsafeArchive(name, scan.entry, scan.reason)
      : invalidArchive(name, `cannot be read (${scan.reason})`);
  }
  if (scan.manifest !== null && !scan.manifest.ok) throw invalidArchive(name, scan.manifest.error);
  const manifest = scan.manifest?.manifest ?? null;
  if (!scan.entries.some((entry) => entry.kind === "file")) throw invalidArchive(name, "holds no files");

  const staging = await mkdtemp(join(paths.archiveDir, TEMP_PREFIX.restore));
  try {
    await extractChecked(file, staging, limits, name);
    await verifyExtractedTree(staging, scan.entries, manifest, name);
    await validateStateFiles(staging, name);
    await prepareForMove(staging);

    const archivedLive = await createArchive(root, {
      reason: `before restore of ${name}`,
      now: options.now,
      complete: true,
    });
    try {
      if (archivedLive !== null) await clearLiveState(root, archivedLive.manifest.files, archivedLive.name);
      await moveIntoPlace(staging, paths);
    } catch (error) {
      const saved =
        archivedLive === null ? "there was no live state to save" : `the state from before is in ${archivedLive.path}`;
      throw new DotagentError(
        "restore_incomplete",
        `Restore of ${name} stopped part-way (${(error as Error).message}); ${saved}; run \`dotagent archive restore\` again`,
        EXIT.refused,
        {
          name,
          archived_live: archivedLive?.name ?? null,
        },
      );
    }
    const restored =
      manifest === null ? describeArchiveWithoutManifest(name, size, null) : describeArchive(name, size, manifest);
    return { restored, archivedLive };
  } finally {
    await removeQuietly(staging);
    fsyncDir(paths.archiveDir);
  }
}

async function findArchive(paths: ArchivePaths, name: string): Promise<string> {
  const notFound = (): DotagentError =>
    new DotagentError(
      "archive_not_found",
      `No archive named ${JSON.stringify(name)} in ${ARCHIVE_DIR}; run \`dotagent archive list\` to see the names`,
      EXIT.refused,
      { name },
    );
  if (!isPlainArchiveFileName(name)) throw notFound();
  const file = join(paths.archiveDir, name);
  try {
    if (!(await lstat(file)).isFile()) throw notFound();
  } catch (error) {
    if (isMissing(error)) throw notFound();
    throw error;
  }
  return file;
}

function unsafeArchive(name: string, entry: string, reason: string): DotagentError {
  return new DotagentError(
    "archive_unsafe",
    `Archive ${name} refused: entry ${JSON.stringify(entry)} ${reason}; nothing was restored (restore takes only files and folders under memory/)`,
    EXIT.invalid,
    { name, entry, reason },
  );
}

function invalidArchive(name: string, problem: string, details: Record<string, unknown> = {}): DotagentError {
  return new DotagentError("archive_invalid", `Archive ${name}: ${problem}; nothing was restored`, EXIT.invalid, {
    name,
    ...details,
  });
}

/**
 * Extracts into the fresh `staging` folder. The scan has already passed; the filter checks each
 * entry again (the file could have been swapped since) and node-tar's own protections stay on:
 * strict (its warnings are errors), no preservePaths (no absolute paths, no `..`, no writing
 * through links), no owner from the archive, a depth limit.
 */
async function extractChecked(file: string, staging: string, limits: ArchiveLimits, name: string): Promise<void> {
  const refusals: Array<{ entry: string; reason: string }> = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const unpack = new Unpack({
        cwd: staging,
        strict: true,
        preservePaths: false,
        preserveOwner: false,
        maxDepth: limits.maxDepth + 1, // node-tar counts the empty segment after a folder's trailing "/"
        filter: (path, entry) => {
          if (!(entry instanceof ReadEntry)) return false;
          const verdict = checkEntry(entry, limits);
          if (!verdict.ok) refusals.push({ entry: path, reason: verdict.reason });
          return verdict.ok;
        },
      });
      const fail = (message: string): void => {
        pump.stop();
        reject(new Error(message));
      };
      unpack.on("error", (error: Error) => fail(error.message));
      unpack.on("close", () => resolve());
      // Bounded like the scan: stops at the end of the tar, refuses past the inflated limit.
      const pump = pumpTarGz(file, unpack, maxInflatedBytes(limits), fail);
    });
  } catch (error) {
    throw invalidArchive(name, `cannot be extracted (${(error as Error).message})`);
  }
  const refusal = refusals[0];
  if (refusal !== undefined) throw unsafeArchive(name, refusal.entry, refusal.reason);
}

/**
 * The extracted tree must hold exactly what the scan saw (only files and folders, same sizes),
 * and, when the archive has a manifest, exactly the files it lists with the same SHA-256.
 */
async function verifyExtractedTree(
  staging: string,
  entries: readonly ScannedEntry[],
  manifest: Manifest | null,
  name: string,
): Promise<void> {
  const files = new Map(entries.filter((e) => e.kind === "file").map((e) => [e.path, e.size]));
  const folders = new Set<string>();
  for (const entry of entries) {
    if (entry.kind === "directory") folders.add(entry.path);
    for (const parent of listAncestors(entry.path)) folders.add(parent);
  }
  const mismatch = (path: string, problem: string): DotagentError =>
    invalidArchive(name, `extracted ${JSON.stringify(path)} ${problem}`, { entry: path });
  const found = new Map<string, string>();
  for (const item of await walkTree(staging)) {
    if (item.kind === "directory") {
      if (!folders.has(item.rel)) throw mismatch(item.rel, "is a folder the archive does not list");
    } else if (item.kind === "file") {
      if (files.get(item.rel) !== item.size) throw mismatch(item.rel, "does not match the archive's listing");
      found.set(item.rel, item.abs);
    } else {
      throw unsafeArchive(name, item.rel, `was extracted as a ${item.kind}`);
    }
  }
  for (const path of files.keys()) if (!found.has(path)) throw mismatch(path, "is missing after extraction");
  if (manifest === null) return;

  const listed = new Set<string>();
  for (const expected of manifest.files) {
    listed.add(expected.path);
    const abs = found.get(expected.path);
    if (abs === undefined)
      throw invalidArchive(name, `${expected.path} is in the manifest but not in the archive`, {
        entry: expected.path,
      });
    if (files.get(expected.path) !== expected.size || (await sha256File(abs)) !== expected.sha256) {
      throw invalidArchive(
        name,
        `${expected.path} does not match its checksum in the manifest (damaged or altered archive)`,
        { entry: expected.path },
      );
    }
  }
  for (const path of found.keys()) {
    if (path !== MANIFEST_NAME && !listed.has(path))
      throw invalidArchive(name, `${path} is in the archive but not in its manifest`, { entry: path });
  }
}

const STATE_SCHEMAS = [
  ["phase.json", parsePhaseState],
  ["execution.json", parseExecutionState],
] as const;

/** phase.json and execution.json, when the archive has them, must be valid state (CONTRACT §3, §4). */
async function validateStateFiles(staging: string, name: string): Promise<void> {
  for (const [file, parse] of STATE_SCHEMAS) {
    const rel = `${STATE_DIR}/${file}`;
    let text: string;
    try {
      text = await readFile(join(staging, rel), "utf8");
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    const decoded = decodeJson(text);
    if (!decoded.ok) throw invalidArchive(name, `${rel}: ${decoded.message}`, { file: rel, json_path: "" });
    const parsed = parse(decoded.value);
    if (!parsed.ok) {
      const first: SchemaProblem | undefined = parsed.problems[0];
      const shown = parsed.problems.slice(0, 3).map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`));
      const more = parsed.problems.length > 3 ? ` (and ${parsed.problems.length - 3} more)` : "";
      throw invalidArchive(name, `${rel}: ${shown.join("; ")}${more}`, { file: rel, json_path: first?.path ?? "" });
    }
  }
}

/**
 * Drops setuid/setgid/sticky bits an archive may carry and makes sure the owner can read and
 * write what is restored; then fsyncs the whole tree so the renames that follow move durable data.
 */
async function prepareForMove(staging: string): Promise<void> {
  for (const item of await walkTree(staging)) {
    const mode = (item.mode & 0o777) | (item.kind === "directory" ? 0o700 : 0o600);
    if ((item.mode & 0o7777) !== mode) await chmod(item.abs, mode);
  }
  await fsyncTree(staging);
}

/** Renames the extracted reports and state files into the (just cleared) live tree, phase.json last. */
async function moveIntoPlace(staging: string, paths: ArchivePaths): Promise<void> {
  await mkdir(paths.reportsDir, { recursive: true });
  const stagedReports = join(staging, REPORTS_DIR);
  let names: string[] = [];
  try {
    names = (await readdir(stagedReports)).sort();
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  for (const name of names) await moveEntry(join(stagedReports, name), join(paths.reportsDir, name));
  fsyncDir(paths.reportsDir);
  // The record of the live state's last write does not describe the restored files: gone, so
  // nothing is claimed about them until dotagent writes them again (SPEC §15 Hand edits).
  forget(paths.stateDir);
  for (const name of STATE_FILES) {
    const from = join(staging, STATE_DIR, name);
    try {
      await lstat(from);
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    await moveEntry(from, join(paths.stateDir, name));
  }
  fsyncDir(paths.stateDir);
}

async function moveEntry(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    // .archive/ mounted from another file system: copy, make durable, then drop the staged copy.
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await cp(from, to, { recursive: true, errorOnExist: true, force: false });
    await fsyncTree(to);
    await rm(from, { recursive: true, force: true });
  }
}
