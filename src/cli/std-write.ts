// Writes to stdout and stderr without making Node's stream objects when nothing else has. The
// first use of `process.stdout` on a pipe builds a net.Socket (~30 internal modules, about 5 ms
// of a 90 ms start-up), which `status --json`, `resume --dry-run` and the hook pay on every call
// for one line of output. Promises:
// - order: once anything has touched `process.stdout` (or stderr), every later write goes through
//   that stream too, so text written through the stream is never overtaken by a direct write;
// - nothing is lost: a direct write is synchronous and complete (a full non-blocking pipe is
//   waited on), so exiting right after it drops nothing; a reader that went away (EPIPE) ends
//   the writing quietly, as `dotagent log | head` expects.
import { writeSync } from "node:fs";

type Name = "stdout" | "stderr";
const touched: Record<Name, boolean> = { stdout: false, stderr: false };
let watching = false;

/** Notes the first use of process.stdout / process.stderr by any code (their getters are lazy). */
export function watchStdStreams(): void {
  if (watching) return;
  watching = true;
  for (const name of ["stdout", "stderr"] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    const get = descriptor?.get;
    if (get === undefined || descriptor?.configurable !== true) {
      touched[name] = true; // cannot tell: use the stream
      continue;
    }
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: descriptor.enumerable ?? true,
      get() {
        touched[name] = true;
        return get.call(process);
      },
    });
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

function writeAllSync(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN")
        Atomics.wait(pause, 0, 0, 1); // a full non-blocking pipe: wait for the reader
      else if (code === "EPIPE" || code === "EBADF")
        return; // nobody reads any more
      else throw error;
    }
  }
}

/** Writes text to stdout or stderr: directly while no stream exists, else through the stream. */
export function writeStd(name: Name, text: string): void {
  if (text === "") return;
  if (!watching || touched[name]) process[name].write(text);
  else writeAllSync(name === "stdout" ? 1 : 2, Buffer.from(text));
}

/** The streams someone made (their writes may still be queued), to drain before exiting. */
export function usedStreams(): NodeJS.WriteStream[] {
  if (!watching) return [process.stdout, process.stderr];
  return (["stdout", "stderr"] as const).filter((name) => touched[name]).map((name) => process[name]);
}
