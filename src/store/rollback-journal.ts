// Carrying out a rollback (src/core/rollback.ts plans it) so that a kill -9 at any point leaves
// the old state or the new one. The journal is a folder, memory/state/.rollback/:
//   journal.json          what to write and which reports move
//   memory/state/…        copies of phase.json, execution.json, events.jsonl as they were
//   memory/reports/…      the reports moved out of the live tree
// It is built as `.rollback.tmp-<pid>` and renamed into place: that rename is the commit point.
// Before it, nothing live has changed (the temp folder is swept). After it, every step is
// idempotent and the next command that takes the lock finishes the rollback (finishRollback):
// move the reports, write execution.json then phase.json, pack the folder into a tar.gz in
// .archive/ (same names and retention as every archive), log `rolled_back`, drop the folder.
import { existsSync, lstatSync, readdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { copyFileInside, fsyncDir, linkInside, mkdirInside, renameInside, writeFileInside } from "./write-file.js";
import { recordRemoved } from "./last-write.js";
import { writeStateJson } from "./state-writer.js";
import { appendEvents } from "./events.js";
import { linkOrCopy, recordCheckpoint } from "./checkpoints.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, MiB, readProjectText } from "./read-file.js";
import { JOURNAL, ROLLBACK_DIR, readPendingRollback, type RollbackJournal } from "./pending-rollback.js";

const ARCHIVED = "archived.json";
const LOGGED = "logged.json";

export { rollbackPending, type RollbackJournal } from "./pending-rollback.js";

/** The archive functions (in the CLI's cold half; the library passes its own). */
export interface Archiver {
  createArchive(root: string, options: { reason: string; now: Date }): Promise<{ name: string } | null>;
  pruneArchives(root: string): Promise<unknown>;
}

function copyIfThere(root: string, from: string, to: string): void {
  try {
    copyFileInside(root, from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** Writes the journal folder; after this returns, the rollback happens (now or on the next command). */
export function commitRollback(paths: ProjectPaths, journal: RollbackJournal): void {
  const temp = join(paths.stateDir, `${ROLLBACK_DIR}.tmp-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  const heldState = join(temp, "memory", "state");
  mkdirInside(paths.root, heldState);
  mkdirInside(paths.root, join(temp, "memory", "reports"));
  for (const file of [paths.phaseFile, paths.executionFile, paths.eventsFile])
    copyIfThere(paths.root, file, join(heldState, relative(paths.stateDir, file)));
  // The reports that stay are linked in too, so the archive holds the whole state from before
  // the rollback and `archive restore` brings it back as it was.
  const moving = new Set(journal.moves);
  for (const path of listReportFiles(paths).files) {
    if (moving.has(path)) continue;
    mkdirInside(paths.root, dirname(join(temp, path)));
    linkOrCopy(paths.root, join(paths.root, path), join(temp, path));
  }
  writeFileInside(paths.root, join(temp, JOURNAL), `${JSON.stringify(journal)}\n`);
  for (const dir of [heldState, join(temp, "memory")]) fsyncDir(dir);
  renameInside(paths.root, temp, join(paths.stateDir, ROLLBACK_DIR));
  fsyncDir(paths.stateDir);
}

/** Finishes the committed rollback (idempotent: any step may already be done). Returns what it did. */
export async function finishRollback(
  paths: ProjectPaths,
  archiver: Archiver,
  now: Date,
): Promise<{ journal: RollbackJournal; archive: string | null }> {
  const dir = join(paths.stateDir, ROLLBACK_DIR);
  // The same checked reader the lock-free commands use: they show what this does.
  const pending = await readPendingRollback(paths);
  if (pending === null)
    throw new DotagentError(
      "rollback_journal_invalid",
      `memory/state/${ROLLBACK_DIR}/${JOURNAL} is missing; the moved reports are in memory/state/${ROLLBACK_DIR}/memory/reports; for the person: put them back by hand, then remove the folder`,
      EXIT.invalid,
    );
  const { journal } = pending;
  // 1. The reports move out of the live tree (a move already made is skipped).
  const touched = new Set<string>();
  for (const path of journal.moves) {
    const live = join(paths.root, path);
    const held = join(dir, path);
    if (!existsSync(live)) continue;
    mkdirInside(paths.root, dirname(held));
    renameInside(paths.root, live, held);
    touched.add(dirname(live)).add(dirname(held));
  }
  for (const folder of touched) fsyncDir(folder);
  // 2. The state files: execution.json first, phase.json last (the one that says where we are).
  if (journal.execution === null) {
    if (existsSync(paths.executionFile)) {
      recordRemoved(paths.root, paths.executionFile);
      unlinkSync(paths.executionFile);
      fsyncDir(paths.stateDir);
    }
  } else writeStateJson(paths.root, paths.executionFile, journal.execution);
  writeStateJson(paths.root, paths.phaseFile, journal.phase);
  // 3. The archive, made once (`archived.json` names it when complete), then linked into .archive/.
  const heldArchives = join(dir, "memory", "state", ".archive");
  let record = readArchived(join(dir, ARCHIVED));
  if (record === null) {
    rmSync(heldArchives, { recursive: true, force: true }); // a cut-off attempt
    const created = await archiver.createArchive(dir, { reason: journal.reason, now: new Date(journal.started_at) });
    record = { name: created?.name ?? null, placed: created === null };
    writeFileInside(paths.root, join(dir, ARCHIVED), `${JSON.stringify(record)}\n`);
  }
  if (!record.placed && record.name !== null) {
    record = { name: placeArchive(paths, join(heldArchives, record.name), record.name), placed: true };
    writeFileInside(paths.root, join(dir, ARCHIVED), `${JSON.stringify(record)}\n`);
  }
  const archive = record.name;
  if (archive !== null) await archiver.pruneArchives(paths.root);
  // 4. The event (and the checkpoint of the state rolled back to), logged once.
  if (!existsSync(join(dir, LOGGED))) {
    recordCheckpoint(
      paths,
      appendEvents(paths.root, paths.eventsFile, [{ ...journal.event, ...(archive ? { archive } : {}) }], now),
    );
    writeFileInside(paths.root, join(dir, LOGGED), "{}\n");
  }
  // 5. The journal goes, in one step.
  const done = join(paths.stateDir, `${ROLLBACK_DIR}.done-${process.pid}`);
  rmSync(done, { recursive: true, force: true });
  renameInside(paths.root, dir, done);
  fsyncDir(paths.stateDir);
  rmSync(done, { recursive: true, force: true });
  return { journal, archive };
}

/**
 * Links the archive into .archive/ under its name, or the next free `-N` of the same second. A
 * name that already holds this very file (a cut-off earlier attempt linked it) is taken as placed.
 */
function placeArchive(paths: ProjectPaths, from: string, name: string): string {
  mkdirInside(paths.root, paths.archiveDir);
  const match = /^(.*_\d{8}T\d{6}Z)(?:-(\d+))?\.tar\.gz$/.exec(name);
  const held = statSync(from);
  for (let seq = Number(match?.[2] ?? 1); seq < 1000; seq++) {
    const candidate = match ? `${match[1]}${seq > 1 ? `-${seq}` : ""}.tar.gz` : name;
    const target = join(paths.archiveDir, candidate);
    try {
      linkInside(paths.root, from, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const there = statSync(target);
      if (there.ino === held.ino && there.dev === held.dev) return candidate;
      if (match) continue;
      throw error;
    }
    fsyncDir(paths.archiveDir);
    return candidate;
  }
  throw new DotagentError("archive_name", `no free archive name for ${name} in memory/state/.archive`, EXIT.refused);
}

function readArchived(file: string): { name: string | null; placed: boolean } | null {
  try {
    const read = readProjectText(file, { maxBytes: MiB, links: "refuse" });
    if (read.kind !== "ok") return null;
    const value = JSON.parse(read.text) as { name?: unknown; placed?: unknown };
    return { name: typeof value.name === "string" ? value.name : null, placed: value.placed === true };
  } catch {
    return null;
  }
}

/**
 * Every file under memory/reports, project-relative with `/`, and those an archive cannot hold
 * (links, FIFOs and other non-regular files, files over 64 MiB): a rollback refuses those up
 * front, since what it moves out lives on only in its archive.
 */
export function listReportFiles(paths: ProjectPaths): { files: string[]; unarchivable: string[] } {
  const files: string[] = [];
  const unarchivable: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const rel = relative(paths.root, full).split("\\").join("/");
      files.push(rel);
      if (!entry.isFile() || lstatSync(full).size > MAX_STATE_BYTES) unarchivable.push(rel);
    }
  };
  walk(paths.reportsDir);
  return { files: files.sort(), unarchivable: unarchivable.sort() };
}
