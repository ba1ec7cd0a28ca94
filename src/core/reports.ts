// What the phase agents' reports say, as plain data the pure core can read. The store fills a
// ReportSnapshot from disk; tests build one by hand.
import { isAbsolute, posix } from "node:path";
import { REPORT, REPORTS_DIR } from "./phases.js";

export type ReportState =
  | { readonly status: "missing" }
  | { readonly status: "exists" }
  | { readonly status: "valid"; readonly data: unknown }
  | { readonly status: "invalid"; readonly reason: string }
  | { readonly status: "outside"; readonly reason: string };

export interface ReportSnapshot {
  /** Project-relative path → what is there. A path not listed counts as missing. */
  readonly files: ReadonlyMap<string, ReportState>;
  /** Valid designs under memory/reports/designs/, sorted. */
  readonly designs: readonly string[];
}

export const MISSING: ReportState = { status: "missing" };
export const EXISTS: ReportState = { status: "exists" };

export function reportAt(snapshot: ReportSnapshot, path: string): ReportState {
  return snapshot.files.get(path) ?? MISSING;
}

export function isValidReport(state: ReportState): boolean {
  return state.status === "valid";
}

export function presentReport(state: ReportState): boolean {
  return state.status === "valid" || state.status === "exists";
}

export type ReportKind = "json" | "markdown" | "verification" | "task";

export function reportKind(path: string): ReportKind {
  if (path.endsWith(".md")) return "markdown";
  if (path === REPORT.verification) return "verification";
  if (path.startsWith(`${REPORT.tasksDir}/`)) return "task";
  return "json";
}

/**
 * A report is valid when it parses as a non-empty JSON object (a .md report: non-empty text);
 * verification.json must also hold a boolean `passed`, a task output `task_id` and `status`.
 */
export function judgeReport(kind: ReportKind, text: string): ReportState {
  if (kind === "markdown")
    return text.trim() === "" ? { status: "invalid", reason: "is empty" } : { status: "valid", data: text };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { status: "invalid", reason: text.trim() === "" ? "is empty" : "is not valid JSON" };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return { status: "invalid", reason: "is not a JSON object" };
  const record = data as Record<string, unknown>;
  if (Object.keys(record).length === 0) return { status: "invalid", reason: "is an empty JSON object" };
  if (kind === "verification" && typeof record.passed !== "boolean")
    return { status: "invalid", reason: "has no boolean `passed`" };
  if (kind === "task") {
    if (typeof record.task_id !== "string" || record.task_id === "")
      return { status: "invalid", reason: "has no `task_id`" };
    if (record.status !== "complete" && record.status !== "failed")
      return { status: "invalid", reason: "has no `status` of complete or failed" };
  }
  return { status: "valid", data };
}

/**
 * Lexical check of a path written into state: it must be relative and stay inside the project.
 * (Links that lead out are caught by the store, which can see the disk.) Returns the normalised
 * project-relative path, or a reason.
 */
const PLAIN_RELATIVE = /^(?!\.{1,2}(?:\/|$))[\w@+-][\w@+.-]*(?:\/(?!\.{1,2}(?:\/|$))[\w@+.-]+)*$/;

export function checkProjectPath(path: string): { ok: true; path: string } | { ok: false; reason: string } {
  // Most paths are plain, like memory/reports/tasks/t-1.json: no normalising needed.
  if (PLAIN_RELATIVE.test(path)) return { ok: true, path };
  if (path === "") return { ok: false, reason: "is empty" };
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\"))
    return { ok: false, reason: "is absolute; use a path relative to the project root" };
  const normal = posix.normalize(path.replace(/\\/g, "/"));
  if (normal === ".." || normal.startsWith("../")) return { ok: false, reason: "leaves the project" };
  return { ok: true, path: normal.replace(/^\.\//, "") };
}
