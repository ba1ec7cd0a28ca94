// The task table for people: `dotagent tasks` prints it, and `status` shows it under the phase bar
// when the plan is short. One renderer, so the two never drift apart.
import { rowTime, whereText, type TaskRow } from "../core/task-list.js";
import { count, escapeControls } from "../core/words.js";
import type { TaskListResult } from "../ops/task-list.js";
import { formatTime } from "./time.js";
import { table } from "./table.js";

const shown = (text: string | null) => escapeControls(text ?? "");

/**
 * The plain list: a line about the workflow, the table, then what a person must read (errors, skip
 * reasons). `start`: what starts a workflow, for the person reading (person-next.ts howToStart);
 * absent: the command the model runs.
 */
export function listLines(result: TaskListResult, width = Number.POSITIVE_INFINITY, start?: string): string[] {
  if (result.workflow_id === null)
    return [
      start === undefined
        ? "No workflow here; `dotagent init --request …` starts one."
        : `No workflow here; start one: ${start}`,
    ];
  const counts = Object.entries(result.counts)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  const round = result.round > 0 ? ` (rework round ${result.round})` : "";
  // A finished workflow's place is its end, in status's words, not its last step.
  const place = result.complete ? "is complete" : `at ${result.phase}${round}`;
  const head = `${result.workflow_id} ${place}: ${count(result.total, "task")}${counts.length > 0 ? `, ${counts.join(", ")}` : ""}`;
  if (result.total === 0) return [`${head}; none planned yet.`];
  const filter = result.filter === null ? "" : `; showing ${result.filter.join(", ")}: ${result.tasks.length}`;
  if (result.tasks.length === 0) return [`${head}${filter}`];
  const rows = result.tasks.map((t) => [
    t.id,
    t.status,
    attemptsCell(t),
    t.depends_on.join(","),
    rowTime(t) === null ? "" : formatTime(rowTime(t)),
    shown(whereText(t)),
    shown(t.title),
  ]);
  return [
    `${head}${filter}`,
    ...table(["ID", "STATUS", "FAILED", "DEPENDS ON", "TIME", "WHERE", "TITLE"], rows, width),
    ...noteLines(result.tasks, width),
  ];
}

/**
 * FAILED: the attempts that failed of the most it may use, then those a kill cut off, which count
 * toward the most too ("0/3 + 1 cut off"): under FAILED, "1/3" for a killed attempt read as a failure.
 */
function attemptsCell(t: TaskRow): string {
  return `${t.attempts - t.cut_off}/${t.max_attempts}${t.cut_off > 0 ? ` + ${t.cut_off} cut off` : ""}`;
}

/** A line under the table for each task whose last error or skip reason a person should read. */
function noteLines(rows: readonly TaskRow[], width: number): string[] {
  const lines: string[] = [];
  for (const t of rows) {
    if (t.status === "skipped" && t.skipped !== null) lines.push(`${t.id} skipped: ${shown(t.skipped.reason)}`);
    else if (t.error !== null && t.status !== "complete" && t.status !== "running")
      lines.push(`${t.id} ${t.status === "pending" ? "last error" : t.status}: ${shown(t.error)}`);
  }
  return lines.map((l) => (l.length > width ? `${l.slice(0, Math.max(0, width - 1))}…` : l));
}
