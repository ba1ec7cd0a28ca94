// The memory of a state file's read, handed on to the next state file write. At 10,000 tasks
// execution.json is 3.6 MB, read into one buffer (then decoded and hashed) and written from
// another; on a small VM each fresh 4 KB page costs a page fault of 20–75 µs, so a write that
// encodes into the read's pages, dead by then, saves some 900 faults. The one promise: a buffer
// is handed on only after its reader is done with it, and handed out once.
//
// With the memory goes what the read parsed from it in pieces (parse-state-json.ts): a write
// whose value still holds those elements copies their bytes, which are still there.
import type { HeldElements } from "./parse-state-json.js";

/** Below this, a buffer is not worth keeping (and may share the pool's memory with others). */
const WORTH_KEEPING = 1024 * 1024;

let spare: { memory: ArrayBuffer; offset: number; held: HeldElements | undefined } | undefined;

/** The memory handed on, whole, and the elements read from it, their bytes at `offset + starts[i]`. */
export interface Spare {
  memory: Buffer;
  offset: number;
  held: HeldElements | undefined;
}

/** The room to read a file of `size` bytes with, past its end, so that the next write fits (a task change adds a few hundred bytes). */
export function roomFor(size: number): number {
  return size >= WORTH_KEEPING ? 64 * 1024 : 0;
}

/**
 * Gives the memory behind `bytes` for reuse. The caller, and whatever it passed them to, keeps no
 * reference to them or to any view of their memory.
 */
export function handOn(bytes: Buffer, held?: HeldElements): void {
  const memory = bytes.buffer;
  if (memory instanceof ArrayBuffer && memory.byteLength >= WORTH_KEEPING)
    spare = { memory, offset: bytes.byteOffset, held };
}

/**
 * `length` bytes to be filled in whole: the memory handed on when it is large enough (then no
 * longer spare), else new. A small buffer (phase.json) is always new, leaving the spare for the
 * large write it is kept for.
 */
export function takeBuffer(length: number): Buffer {
  if (length < WORTH_KEEPING) return Buffer.allocUnsafe(length);
  const memory = spare?.memory;
  spare = undefined;
  return memory !== undefined && memory.byteLength >= length
    ? Buffer.from(memory, 0, length)
    : Buffer.allocUnsafe(length);
}

/** The memory handed on, whole, to be filled from its start (then no longer spare); undefined when there is none. */
export function takeSpare(): Spare | undefined {
  const taken = spare;
  spare = undefined;
  return taken === undefined
    ? undefined
    : { memory: Buffer.from(taken.memory), offset: taken.offset, held: taken.held };
}
