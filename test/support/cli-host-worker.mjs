// The thread between a test and its CLI host (test/support/cli-host.ts): the test blocks on a
// shared flag while this thread, free to wait on pipes, hands the request to the host process and
// the response back. A host that ends or breaks answers the call with `failed`, and the next call
// starts a new one; a host is also replaced after RESTART_AFTER calls, since a call of a file run
// as a module leaves that module in its memory. dotagent's bundle is not run so (its hot half is
// compiled once, cli-host-process.mjs): 2,000 calls in one host stayed at 115-134 MB, and a
// replaced host compiles it again, so the limit is high (issue 41: 100 cost ~3 ms a call).
import { spawn } from "node:child_process";
import { workerData } from "node:worker_threads";
import { jsonLines } from "./json-lines.mjs";

const { flag, hostScript, port } = workerData;
const RESTART_AFTER = 1000;
let host;

function startHost() {
  // stdout and stderr are pipes, as spawnSync gives a CLI (never the terminal a test may run in):
  // a call's own output is captured inside the host, and anything else is passed on to stderr.
  // vm modules (cli-host-process.mjs compiles the CLI from V8's code cache), without their warning.
  const flags = ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning"];
  const child = spawn(process.execPath, [...flags, hostScript], { stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] });
  child.stdout.on("data", (chunk) => process.stderr.write(chunk));
  child.stderr.on("data", (chunk) => process.stderr.write(chunk));
  child.stdout.unref?.();
  child.stderr.unref?.();
  // The test's process ends whenever its files are done; the host (reading EOF on fd 3) ends with it.
  child.unref();
  child.stdio[3].unref();
  child.stdio[4].unref();
  const state = { child, calls: 0, pending: null };
  child.stdio[4].on(
    "data",
    jsonLines((response) => {
      if (response.retire === true) retire(state);
      answer(state, response);
    }),
  );
  child.on("exit", (code, signal) => {
    if (host === state) host = undefined;
    answer(state, { failed: `the CLI host ended (${signal ?? `exit ${code}`}) during the call` });
  });
  child.on("error", (error) => answer(state, { failed: `the CLI host could not start: ${error.message}` }));
  // A host that died mid-write shows as its exit; a broken pipe is not an error of its own here.
  for (const stream of [child.stdout, child.stderr, child.stdio[3], child.stdio[4]]) stream.on("error", () => {});
  return state;
}

/** No call goes to `state` any more; it ends when its requests end. */
function retire(state) {
  if (host === state) host = undefined;
  state.child.stdio[3].end();
}

function answer(state, response) {
  const pending = state.pending;
  if (pending === null) return;
  state.pending = null;
  port.postMessage({ ...response, id: pending });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

// Whatever goes wrong in here answers the call in flight rather than leaving the test waiting.
process.on("uncaughtException", (error) => {
  if (host !== undefined) answer(host, { failed: `the CLI host's worker failed: ${error?.stack ?? error}` });
});

port.on("message", (request) => {
  if (request === "close") {
    host?.child.stdio[3].end();
    port.close();
    return;
  }
  if (host !== undefined && host.calls >= RESTART_AFTER) retire(host);
  host ??= startHost();
  host.calls++;
  host.pending = request.id;
  host.child.stdio[3].write(`${JSON.stringify(request)}\n`);
});
