// Reads the phase agents' reports into a ReportSnapshot. Only the files asked for are read, and
// task outputs can be checked for existence only, so a state with 10,000 tasks costs 10,000
// lstat calls, not 10,000 parses. A path whose real location is outside the project (a link out)
// is reported as `outside`, never followed. A report the disk refuses to show (EACCES, EIO, … on
// the file or its folder) is `state_unreadable`, never "missing" or "invalid" (§2): the agent's
// work may be there, and redoing it on that guess is the wrong answer.
import { lstatSync, opendirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import {
  EXISTS,
  checkProjectPath,
  judgeReport,
  reportKind,
  type ReportSnapshot,
  type ReportState,
} from "../core/reports.js";
import { REPORT } from "../core/phases.js";
import type { ReportRequest } from "../core/snapshot.js";
import { MAX_STATE_BYTES, readProjectText } from "./read-file.js";
import { DotagentError, EXIT } from "../core/errors.js";

/**
 * Errors by which the disk refuses to show what is there (permissions, I/O, no descriptors left).
 * Others (ENOENT, ENOTDIR, ELOOP, EISDIR, …) say what the path is, as before: missing or invalid.
 */
const REFUSED = new Set(["EACCES", "EPERM", "EIO", "EMFILE", "ENFILE", "ENOMEM", "ESTALE"]);
const refusedBy = (error: unknown) => REFUSED.has((error as NodeJS.ErrnoException).code ?? "");

function unreadable(root: string, path: string, error: unknown): DotagentError {
  const code = (error as NodeJS.ErrnoException).code ?? "error";
  const rel = relative(root, path) || path;
  return new DotagentError(
    "state_unreadable",
    `${rel} cannot be read (${code}); the reports are there but unreadable: check the permissions of memory/reports/ and its folders`,
    EXIT.invalid,
    { path: rel, errno: code },
  );
}

export type { ReportRequest } from "../core/snapshot.js";

export function readReports(root: string, requests: Iterable<ReportRequest>): ReportSnapshot {
  const files = new Map<string, ReportState>();
  const realRoot = safeRealpath(root) ?? root;
  const dirCache = new Map<string, boolean>();
  const insideReal = (relDir: string): boolean => {
    let cached = dirCache.get(relDir);
    if (cached === undefined) {
      const real = safeRealpath(join(root, relDir));
      cached = real === undefined || real === realRoot || real.startsWith(realRoot + sep);
      dirCache.set(relDir, cached);
    }
    return cached;
  };
  let taskFiles: Set<string> | undefined;
  for (const request of requests) {
    const existing = files.get(request.path);
    if (existing !== undefined && (existing.status !== "exists" || request.mode === "exists")) continue;
    // Existence of task outputs: one listing of the tasks folder instead of an lstat per task
    // (10,000 tasks). Names not listed as regular files take the careful path below.
    if (request.mode === "exists" && request.path.startsWith(TASKS_PREFIX)) {
      taskFiles ??= listRegularFiles(root, join(root, REPORT.tasksDir));
      const name = request.path.slice(TASKS_PREFIX.length);
      if (taskFiles.has(name) && insideReal(REPORT.tasksDir)) {
        files.set(request.path, EXISTS);
        continue;
      }
    }
    files.set(request.path, readOne(root, request, insideReal));
  }
  return { files, designs: listDesigns(root, files, insideReal) };
}

const TASKS_PREFIX = `${REPORT.tasksDir}/`;

/**
 * The names of the regular files in `dir` (none when it is not there). Read in batches: at 10,000
 * tasks a whole listing was 9,000 entries alive at once; each now lives only until its name is kept.
 * Measured there: some 340 fewer page faults for `task complete`, but ~66 M more instructions for
 * `status --json` than readdirSync's one call (842 M against 908 M); which weighs more depends on
 * the machine's cost of a fresh page.
 */
function listRegularFiles(root: string, dir: string): Set<string> {
  const names = new Set<string>();
  try {
    const listing = opendirSync(dir, { bufferSize: 128 });
    try {
      for (let entry = listing.readSync(); entry !== null; entry = listing.readSync())
        if (entry.isFile()) names.add(entry.name);
    } finally {
      listing.closeSync();
    }
  } catch (error) {
    if (refusedBy(error)) throw unreadable(root, dir, error);
    return new Set();
  }
  return names;
}

function readOne(root: string, request: ReportRequest, insideReal: (relDir: string) => boolean): ReportState {
  const checked = checkProjectPath(request.path);
  if (!checked.ok) return { status: "outside", reason: checked.reason };
  const full = join(root, checked.path);
  let stat;
  try {
    stat = lstatSync(full);
  } catch (error) {
    if (refusedBy(error)) throw unreadable(root, full, error);
    return { status: "missing" };
  }
  if (stat.isSymbolicLink()) {
    const real = safeRealpath(full);
    const realRoot = safeRealpath(root) ?? root;
    if (real === undefined) return { status: "missing" };
    if (!(real === realRoot || real.startsWith(realRoot + sep)))
      return { status: "outside", reason: "is a link that leads out of the project" };
    stat = safeStat(real);
    if (stat === undefined) return { status: "missing" };
  }
  if (!stat.isFile()) {
    return { status: "invalid", reason: "is not a regular file" };
  }
  if (!insideReal(dirname(checked.path)))
    return { status: "outside", reason: "is inside a folder linked out of the project" };
  if (request.mode === "exists") return { status: "exists" };
  // Never blocks (a FIFO swapped in after the check is refused on the open descriptor), bounded.
  const read = readProjectText(full, { maxBytes: MAX_STATE_BYTES, links: "inside", root });
  if (read.kind === "missing") return { status: "missing" };
  if (read.kind === "refused" && refusedBy({ code: read.errno })) throw unreadable(root, full, { code: read.errno });
  if (read.kind === "refused")
    return read.reason.includes("out of the project")
      ? { status: "outside", reason: read.reason }
      : { status: "invalid", reason: read.reason };
  return judgeReport(request.check ? "verification" : reportKind(checked.path), read.text);
}

function safeStat(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function listDesigns(root: string, files: Map<string, ReportState>, insideReal: (relDir: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, REPORT.designsDir));
  } catch (error) {
    if (refusedBy(error)) throw unreadable(root, join(root, REPORT.designsDir), error);
    return [];
  }
  const valid: string[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith(".json")) continue;
    const path = `${REPORT.designsDir}/${name}`;
    const state = files.get(path) ?? readOne(root, { path, mode: "parse" }, insideReal);
    files.set(path, state);
    if (state.status === "valid") valid.push(path);
  }
  return valid;
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** When each report was last written (ms), for the ones there: a gate's question is as new as its newest report (core/person-answer.ts). */
export function reportTimes(root: string, paths: readonly string[]): number[] {
  return paths.flatMap((path) => {
    const stat = safeStat(join(root, path));
    return stat?.isFile() ? [Number(stat.mtimeMs)] : [];
  });
}

/** The designs folder's JSON files, project-relative (none when it cannot be read). */
export function designFiles(root: string): string[] {
  try {
    return readdirSync(join(root, REPORT.designsDir))
      .filter((name) => name.endsWith(".json"))
      .map((name) => `${REPORT.designsDir}/${name}`);
  } catch {
    return [];
  }
}

/**
 * Every report file a person may read (`dotagent show`): the JSON and Markdown files directly in
 * memory/reports/, designs/ and tasks/, and `stepReports` (the workflow's steps' own reports, a
 * check's `steps/<ID>.json` say) with their rework copies wherever they lie; project-relative and
 * sorted; `unowned/` and other files in other folders are not reports. A folder the disk refuses is
 * `state_unreadable`, never an empty list.
 */
export function listReportFiles(root: string, stepReports: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const dir of [REPORTS_ROOT, REPORT.designsDir, REPORT.tasksDir]) {
    for (const name of listRegularFiles(root, join(root, dir))) {
      if (name.endsWith(".json") || (dir === REPORTS_ROOT && name.endsWith(".md"))) found.add(`${dir}/${name}`);
    }
  }
  for (const report of stepReports) {
    const dir = dirname(report);
    if (
      dir === REPORTS_ROOT ||
      !report.startsWith(`${REPORTS_ROOT}/`) ||
      !checkProjectPath(report).ok ||
      report.split("/").includes("..")
    )
      continue;
    const base = report.slice(dir.length + 1);
    const copy = new RegExp(
      `^${base.replace(/\.(json|md)$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.rework-\\d+\\.(json|md)$`,
    );
    for (const name of listRegularFiles(root, join(root, dir)))
      if (name === base || copy.test(name)) found.add(`${dir}/${name}`);
  }
  return [...found].sort();
}

const REPORTS_ROOT = "memory/reports";
