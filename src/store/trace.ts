// Where a command's time goes, for whoever measures it (DOTAGENT_TRACE=<file>): each process
// appends one JSON line at its exit: pid, the first arguments, when it started (epoch ms), its
// marks (name, ms since start: the lock taken and released, each git command and its duration)
// and when it ended. Unset, a mark costs one property read.
import { appendFileSync } from "node:fs";

const marks: Array<[string, number, number?]> = [];

const now = () => Math.round(performance.now() * 10) / 10;

/** Notes a moment (and a duration, for a call that took some). */
export function mark(name: string, ms?: number): void {
  if (process.env.DOTAGENT_TRACE) marks.push(ms === undefined ? [name, now()] : [name, now(), Math.round(ms * 10) / 10]);
}

/** Appends this process's line; never fails the command. */
export function writeTrace(args: readonly string[], code: number): void {
  const file = process.env.DOTAGENT_TRACE;
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify({ pid: process.pid, args: args.slice(0, 3), start: Math.round(performance.timeOrigin), marks, end: now(), code })}\n`);
  } catch {
    // a trace that cannot be written is not the command's failure
  }
}
