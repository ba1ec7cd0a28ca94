// One contender for the state lock, run as a child process by lock-holder.test.ts:
//   node lock-taker.mjs <src/store/lock.ts bundled (helpers.lockLibrary)> <memory/state dir> <start-at epoch ms> <hold ms>
// Waits until the start time (so all contenders go at once), takes the lock with the store's
// acquireLock, proves it is alone inside (an exclusive marker file), holds it a moment, releases,
// and prints {"pid", "warnings", "overlap"} on stdout.
import { closeSync, openSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [library, stateDir, startAt, holdMs] = process.argv.slice(2);
const { acquireLock } = await import(pathToFileURL(library).href);
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));

sleep(Number(startAt) - Date.now());
const lock = acquireLock(stateDir, { command: "lock-taker", waitMs: 30_000 });
let overlap = false;
const marker = join(stateDir, "inside.marker");
try {
  closeSync(openSync(marker, "wx"));
} catch {
  overlap = true; // someone else is inside: two holders at once
}
sleep(Number(holdMs));
if (!overlap) unlinkSync(marker);
lock.release();
process.stdout.write(`${JSON.stringify({ pid: process.pid, warnings: lock.warnings, overlap })}\n`);
