// memory/state/.step-running.json: the `step run` that is running a step's command, and the
// command's process group once it is started (SPEC §20). The promise: at most one copy of a step's
// command runs at a time. The record names its owner (the `step run` process) from before the
// command starts until after it ends, so a second `step run` sees it whether it comes while the
// command starts, runs, or is between its retries; the command itself is named as soon as it is
// started (it waits for that, src/ops/step-run.ts), because a killed owner leaves it running in
// its own process group. The owner claims the record under the state lock, so two `step run`s at
// the same moment cannot both claim it. A record whose owner and command have both ended (or are
// on another host, or whose pids were reused) is stale: the next claim replaces it.
import { join } from "node:path";
import { rmSync } from "node:fs";
import { writeFileInside } from "./write-file.js";
import { writeFailure } from "./io-error.js";
import { currentHost, isProcessRunning, processStartTime } from "./process-facts.js";
import { readProjectText } from "./read-file.js";

const STEP_RUNNING_FILE = ".step-running.json";

export interface StepRunning {
  step: string;
  /** The `step run` process that owns the run. */
  owner: number;
  owner_start: string | null;
  /** The command's shell, the leader of its process group; null until it is started. */
  pid: number | null;
  pid_start: string | null;
  host: string;
  started_at: string;
}

/** Who still runs `step`: its owner (`step run` at work), its command (outliving a killed owner), or nobody. */
export type StepRunningVerdict =
  { kind: "none" } | { kind: "owner"; record: StepRunning } | { kind: "command"; record: StepRunning };

const fileOf = (stateDir: string) => join(stateDir, STEP_RUNNING_FILE);

export function readStepRunning(stateDir: string, step: string): StepRunningVerdict {
  const read = readProjectText(fileOf(stateDir), { maxBytes: 64 * 1024, links: "refuse" });
  if (read.kind !== "ok") return { kind: "none" };
  let record: Partial<StepRunning>;
  try {
    record = JSON.parse(read.text) as Partial<StepRunning>;
  } catch {
    return { kind: "none" };
  }
  if (record.step !== step || record.host !== currentHost()) return { kind: "none" };
  const live = (pid: unknown, start: unknown) =>
    typeof pid === "number" &&
    Number.isSafeInteger(pid) &&
    pid > 1 &&
    isProcessRunning(pid, typeof start === "string" ? start : null);
  if (live(record.owner, record.owner_start)) return { kind: "owner", record: record as StepRunning };
  if (live(record.pid, record.pid_start)) return { kind: "command", record: record as StepRunning };
  return { kind: "none" };
}

/** Writes the record (durably); a failure is one line (`write_failed`), and no command has started on it. */
export function writeStepRunning(
  root: string,
  stateDir: string,
  record: Omit<StepRunning, "owner_start" | "pid_start" | "host">,
): void {
  const full: StepRunning = {
    ...record,
    owner_start: processStartTime(record.owner),
    pid_start: record.pid === null ? null : processStartTime(record.pid),
    host: currentHost(),
  };
  try {
    writeFileInside(root, fileOf(stateDir), `${JSON.stringify(full)}\n`);
  } catch (error) {
    throw writeFailure(`memory/state/${STEP_RUNNING_FILE}`, error);
  }
}

export function clearStepRunning(stateDir: string): void {
  rmSync(fileOf(stateDir), { force: true });
}
