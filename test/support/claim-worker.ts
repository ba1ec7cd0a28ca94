// A worker process for the claim tests and scripts/claim-figures.mjs (bundled by esbuild, see
// claim-bundle.ts): one operation of src/ops/claims.ts, asked as JSON in argv[2], answered as one
// JSON line. With `go`, it writes `<go>.ready-<pid>` once loaded and waits until `go` exists
// before its first git call, so several spawned workers race for a ref at the same moment, and a
// kill can be timed from the start of its git work rather than of node.
import { existsSync, writeFileSync } from "node:fs";
import { DotagentError } from "../../src/core/errors.js";
import { claimTask, changeHeldClaim, newWorker, type ClaimContext } from "../../src/ops/claims.js";
import type { ClaimWorker } from "../../src/core/claims.js";

interface Ask {
  op: "claim" | "renew" | "release" | "done";
  cwd: string;
  remote: string;
  workflowId: string;
  taskId: string;
  worker?: ClaimWorker;
  now?: string;
  go?: string;
  timeoutMs?: number;
}

const ask = JSON.parse(process.argv[2]!) as Ask;
if (ask.go !== undefined) {
  writeFileSync(`${ask.go}.ready-${process.pid}`, "");
  while (!existsSync(ask.go)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
}
const ctx: ClaimContext = {
  remote: { cwd: ask.cwd, remote: ask.remote, ...(ask.timeoutMs !== undefined ? { timeoutMs: ask.timeoutMs } : {}) },
  workflowId: ask.workflowId,
  worker: ask.worker ?? newWorker(),
  ...(ask.now !== undefined ? { now: () => new Date(ask.now!) } : {}),
};
try {
  const result = ask.op === "claim" ? claimTask(ctx, ask.taskId) : changeHeldClaim(ctx, ask.taskId, ask.op);
  process.stdout.write(`${JSON.stringify({ worker: ctx.worker, ...result })}\n`);
} catch (error) {
  if (!(error instanceof DotagentError)) throw error;
  process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`);
  process.exitCode = 1;
}
