// Runs the built CLI in a host process kept for the test worker (cli-host-process.mjs; the files
// that share a worker, vitest.config.ts, share it too) instead of a new Node process per call:
// ~10-20 ms of CPU a call instead of ~210 ms, and most of `npm test`'s time is CLI calls. Synchronous like
// spawnSync: the test blocks on a shared flag while a worker thread (cli-host-worker.mjs) talks to
// the host. `dotagent()` (cli.ts) decides which calls come here; DOTAGENT_TEST_SPAWN=1 spawns
// every call as before.
import { Worker, MessageChannel, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { fileURLToPath } from "node:url";

export interface HostResult {
  code: number;
  stdout: string;
  stderr: string;
}

let bridge: { worker: Worker; port: MessagePort; flag: Int32Array } | undefined;
let nextId = 0;

function open(): NonNullable<typeof bridge> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./cli-host-worker.mjs", import.meta.url), {
    workerData: { flag, hostScript: fileURLToPath(new URL("./cli-host-process.mjs", import.meta.url)), port: port2 },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  return { worker, port: port1, flag };
}

/** Runs `cli` with `args` in `cwd` with exactly `env`, as a spawned CLI would, in the host. */
export function hostRun(
  cli: string,
  cwd: string,
  args: string[],
  env: Record<string, string | undefined>,
  input = "",
  terminal?: { columns: number; stdin: boolean },
): HostResult {
  bridge ??= open();
  const id = ++nextId;
  bridge.port.postMessage({ id, cli, cwd, args, env, input, terminal });
  // A call that never ends is a hang: after 10 minutes the host is dropped (the next call starts
  // another) and the test fails here.
  const deadline = Date.now() + 600_000;
  let response: (HostResult & { id: number; failed?: string }) | undefined;
  for (;;) {
    // The flag is cleared before the port is read, so an answer posted after the read sets it
    // again and the wait below returns at once: no answer is waited past.
    Atomics.store(bridge.flag, 0, 0);
    const message = receiveMessageOnPort(bridge.port)?.message as typeof response;
    if (message !== undefined && message.id === id) {
      response = message;
      break;
    }
    // A second answer to a call already answered (one CI run got one, and every later call of the
    // worker then read its predecessor's answer): said and dropped, so it costs no other call.
    if (message !== undefined && message.id < id) {
      process.stderr.write(`cli-host: a second answer to call ${message.id} dropped (call ${id} waits on)\n`);
      continue;
    }
    if (message !== undefined) throw new Error(`the CLI host answered call ${message.id} during call ${id}`);
    const left = deadline - Date.now();
    if (left <= 0) {
      void bridge.worker.terminate();
      bridge = undefined;
      throw new Error(`the CLI host did not answer \`dotagent ${args.join(" ")}\` in 10 minutes`);
    }
    Atomics.wait(bridge.flag, 0, 0, Math.min(left, 1000));
  }
  if (response.failed !== undefined) throw new Error(`the CLI host failed: ${response.failed}`);
  return { code: response.code, stdout: response.stdout, stderr: response.stderr };
}
