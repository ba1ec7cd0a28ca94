// Where a command's time goes, for whoever measures it (DOTAGENT_TRACE=<file>): each process
// appends one JSON line at its exit: pid, the first arguments, when it started (epoch ms), its
// marks (name, ms since start: the lock taken and released, each git command and its duration)
// and when it ended. Unset, a mark costs one property read. The file must be a regular file: it
// is opened without blocking and anything else (a FIFO nobody reads, a device, a link) gets no
// line, so a trace can never hold up the command (write-file.ts's appendFileInside, in the folder
// the person named).
import { dirname, resolve } from "node:path";
import { appendFileInside } from "./write-file.js";

const marks: Array<[string, number, number?]> = [];

const now = () => Math.round(performance.now() * 10) / 10;

/** Notes a moment (and a duration, for a call that took some). */
export function mark(name: string, ms?: number): void {
  if (process.env.DOTAGENT_TRACE)
    marks.push(ms === undefined ? [name, now()] : [name, now(), Math.round(ms * 10) / 10]);
}

/**
 * Runs `work`, noting how long it took under `name` when tracing. Unset, the clock is not read:
 * the first use of `performance` loads perf_hooks (about ten internal modules) into a process
 * that would otherwise never need them.
 */
export function timed<T>(name: string, work: () => T): T {
  if (!process.env.DOTAGENT_TRACE) return work();
  const started = performance.now();
  const result = work();
  mark(name, performance.now() - started);
  return result;
}

/** Appends this process's line; never fails the command. */
export function writeTrace(args: readonly string[], code: number): void {
  const file = process.env.DOTAGENT_TRACE;
  if (!file) return;
  try {
    const path = resolve(file);
    appendFileInside(
      dirname(path),
      path,
      `${JSON.stringify({ pid: process.pid, args: args.slice(0, 3), start: Math.round(performance.timeOrigin), marks, end: now(), code })}\n`,
      { within: "the folder DOTAGENT_TRACE names" },
    );
  } catch {
    // a trace that cannot be written is not the command's failure
  }
}
