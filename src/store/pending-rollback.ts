// A rollback committed but not finished (memory/state/.rollback/journal.json, rollback-journal.ts):
// the one reader of its journal, for the command that finishes it and for the lock-free readers
// (status, resume --dry-run, validate, doctor, history, the hook). Both see the same journal, so
// what a reader shows is what the next command that takes the lock will do: finish the rollback.
// The journal is checked before anyone acts on it: its state files must parse, and the reports it
// moves must be plain paths under memory/reports/ (a hand-made journal never moves a file from
// anywhere else).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { checkProjectPath } from "../core/reports.js";
import { REPORTS_DIR } from "../core/phases.js";
import { decodeJson } from "../schema/json.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, readProjectText } from "./read-file.js";

export const ROLLBACK_DIR = ".rollback";
export const JOURNAL = "journal.json";

export interface RollbackJournal {
  format: 1;
  started_at: string;
  workflow_id: string;
  /** The archive's reason (`dotagent archive list` shows it). */
  reason: string;
  /** Report paths (project-relative) that move into the archive. */
  moves: string[];
  /** phase.json and execution.json as they will be (null: execution.json goes). */
  phase: PhaseState;
  execution: ExecutionState | null;
  event: { type: "rolled_back"; [key: string]: unknown };
}

export function rollbackDir(paths: ProjectPaths): string {
  return join(paths.stateDir, ROLLBACK_DIR);
}

/** A committed rollback waits to be finished (its journal is there). */
export function rollbackPending(paths: ProjectPaths): boolean {
  return existsSync(join(rollbackDir(paths), JOURNAL));
}

function invalid(why: string): DotagentError {
  return new DotagentError(
    "rollback_journal_invalid",
    `memory/state/${ROLLBACK_DIR}/${JOURNAL} cannot be read (${why}); the moved reports are in memory/state/${ROLLBACK_DIR}/memory/reports; for the person: put them back by hand, then remove the folder`,
    EXIT.invalid,
    { path: `memory/state/${ROLLBACK_DIR}/${JOURNAL}` },
  );
}

/** The journal as written, and its state files as the state will read once they are written. */
export interface PendingRollback {
  readonly journal: RollbackJournal;
  readonly phase: PhaseState;
  readonly execution: ExecutionState | null;
}

/** The committed rollback's journal, checked; null when there is none; `rollback_journal_invalid` (exit 3) when it cannot be trusted. */
export async function readPendingRollback(paths: ProjectPaths): Promise<PendingRollback | null> {
  if (!rollbackPending(paths)) return null;
  const read = readProjectText(join(rollbackDir(paths), JOURNAL), { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "missing") return null;
  if (read.kind === "refused") throw invalid(`it ${read.reason}`);
  const decoded = decodeJson(read.text);
  if (!decoded.ok) throw invalid(decoded.message.split("\n")[0] ?? "not JSON");
  const raw = decoded.value as Partial<Record<keyof RollbackJournal, unknown>> | null;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || raw.format !== 1)
    throw invalid("it is not a rollback journal (format 1)");
  if (
    typeof raw.started_at !== "string" ||
    Number.isNaN(Date.parse(raw.started_at)) ||
    typeof raw.workflow_id !== "string" ||
    typeof raw.reason !== "string"
  )
    throw invalid("started_at, workflow_id or reason is missing");
  if (!Array.isArray(raw.moves)) throw invalid("moves: expected an array of report paths");
  for (const move of raw.moves) {
    const checked = typeof move === "string" ? checkProjectPath(move) : null;
    if (checked === null || !checked.ok || checked.path !== move || !move.startsWith(`${REPORTS_DIR}/`))
      throw invalid(`moves: ${JSON.stringify(move)} is not a report path under ${REPORTS_DIR}/`);
  }
  const event = raw.event as { type?: unknown } | null | undefined;
  if (typeof event !== "object" || event === null || event.type !== "rolled_back")
    throw invalid("event: expected the rolled_back event");
  const [{ parsePhaseState }, { parseExecutionState }] = await Promise.all([
    import("../schema/phase.js"),
    import("../schema/execution.js"),
  ]);
  const phase = parsePhaseState(raw.phase);
  if (!phase.ok)
    throw invalid(`phase: ${phase.problems[0]?.path ?? ""} ${phase.problems[0]?.message ?? "not a phase.json"}`.trim());
  const execution = raw.execution === null ? null : parseExecutionState(raw.execution);
  if (execution !== null && !execution.ok)
    throw invalid(
      `execution: ${execution.problems[0]?.path ?? ""} ${execution.problems[0]?.message ?? "not an execution.json"}`.trim(),
    );
  if (phase.value.workflow_id !== raw.workflow_id)
    throw invalid(`phase.workflow_id ${phase.value.workflow_id} is not the journal's ${raw.workflow_id}`);
  return {
    journal: raw as RollbackJournal,
    phase: phase.value,
    execution: execution === null ? null : execution.value,
  };
}
