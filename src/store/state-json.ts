// A state file's bytes: `JSON.stringify(value, null, 2)` and a newline, as UTF-8, byte for byte.
//
// Why not just that: V8 builds a large JSON.stringify result as a chain of pieces (a cons string),
// and turning it into bytes first copies the whole chain into one flat string. At 10,000 tasks
// that is a second 3.6 MB of fresh memory per write (some 900 page faults of 20–75 µs each on a
// small VM). A state value with a long array member (execution.json's tasks) is therefore written
// member by member, and that array element by element: each piece is stringified in a small
// wrapper that puts it at the depth it has in the whole (so its indentation, and what JSON.stringify
// does with undefined, functions, symbols and toJSON, are the same), cut out of the wrapper and
// encoded straight into one buffer (spare-buffer.ts: the memory of the state file read before).
// Anything else (a small value, one with a toJSON of its own, a class instance) is stringified
// whole as before.
//
// When that memory still holds the state file read before, parsed in pieces (parse-state-json.ts),
// an element of the value that is one of the elements read (the same object: frozen since, so
// unchanged) is not encoded again: its bytes, and the separators between such neighbours, are
// moved into place within the memory and only the rest is encoded (assemble-in-place.ts). A task
// change at 10,000 tasks encodes one element, not 10,000.
import { assembleInPlace, type Piece } from "./assemble-in-place.js";
import type { HeldElements } from "./parse-state-json.js";
import { takeBuffer, takeSpare, type Spare } from "./spare-buffer.js";

/** An array member at least this long is written element by element. */
const SPLIT_AT = 128;

type Plain = Record<string, unknown>;

/** A value JSON.stringify walks as its own members, with no toJSON of its own to ask. */
function isPlainObject(value: unknown): value is Plain {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as Plain).toJSON !== "function";
}

function isLongArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length >= SPLIT_AT && typeof (value as unknown as Plain).toJSON !== "function";
}

/** `JSON.stringify(value, null, 2)` and "\n", as UTF-8. */
export function encodeStateJson(value: unknown): Buffer {
  if (!isPlainObject(value) || !Object.values(value).some(isLongArray)) {
    const text = JSON.stringify(value, null, 2);
    const bytes = takeBuffer(Buffer.byteLength(text, "utf8") + 1);
    bytes.write(text, "utf8");
    bytes[bytes.length - 1] = 0x0a;
    return bytes;
  }
  const spare = takeSpare();
  const at = spare?.held === undefined ? undefined : readAt(spare.held, value);
  const out =
    spare?.held === undefined || at === undefined ? new Sink(value, spare?.memory) : new Reusing(spare, spare.held, at);
  writeMembers(value, out);
  return out.done();
}

/** Where the bytes of a state value go: text, and the elements of a long array. */
interface Out {
  put(text: string): void;
  elements(array: readonly unknown[]): void;
  done(): Buffer;
}

/** The value's members in JSON.stringify's layout at indent 2, its long arrays element by element. */
function writeMembers(value: Plain, out: Out): void {
  let first = true;
  out.put("{");
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (isLongArray(member)) {
      out.put(first ? "\n  " : ",\n  ");
      out.put(JSON.stringify(key));
      out.put(": [");
      out.elements(member);
      out.put("\n  ]");
    } else {
      // The member in an object of its own at depth 0: `{\n  "key": value\n}`, or `{}` when
      // JSON.stringify leaves it out.
      const text = JSON.stringify({ [key]: member }, null, 2);
      if (text.length === 2) continue;
      out.put(first ? "\n  " : ",\n  ");
      out.put(text.slice(4, -2));
    }
    first = false;
  }
  out.put("\n}\n");
}

/**
 * The element as the value of key i in an object at depth 1: at depth 2, as in the whole, and
 * given to a toJSON with its own index. Where JSON.stringify leaves it out of an object
 * (undefined, a function, a symbol), an array holds null.
 */
function elementText(element: unknown, i: number): string {
  const index = String(i);
  const text = JSON.stringify([{ [index]: element }], null, 2);
  return text.length === EMPTY_AT_2.length ? "null" : text.slice(PREFIX_AT_2 + index.length + 3, -6);
}

/**
 * Each element read, by its index in what was read; undefined when the value holds none of them
 * (a new plan): then it is encoded into the memory as ever, not gathered as text first.
 */
function readAt(held: HeldElements, value: Plain): WeakMap<object, number> | undefined {
  const at = new WeakMap<object, number>();
  for (let i = 0; i < held.elements.length; i++) {
    const element = held.elements[i];
    if (typeof element === "object" && element !== null) at.set(element, i);
  }
  const holdsOne = (member: unknown) =>
    isLongArray(member) && member.some((e) => typeof e === "object" && e !== null && at.has(e));
  return Object.values(value).some(holdsOne) ? at : undefined;
}

/**
 * The value's bytes made in the memory of the file read before: the elements read, where the
 * value still holds them in their order, copied from there (with the separator between two read
 * neighbours), everything else encoded.
 */
class Reusing implements Out {
  private readonly pieces: Piece[] = [];
  private text = "";
  /** The read element copied last, when nothing came after it yet. */
  private copied = -1;
  /** Where the last copy's source ends: a copy's source must lie after it. */
  private sourceEnd = 0;
  constructor(
    private readonly spare: Spare,
    private readonly held: HeldElements,
    private readonly at: WeakMap<object, number>,
  ) {}

  put(text: string): void {
    this.text += text;
    this.copied = -1;
  }

  elements(array: readonly unknown[]): void {
    const { held } = this;
    const { offset } = this.spare;
    for (let i = 0; i < array.length; i++) {
      const element = array[i];
      const read = typeof element === "object" && element !== null ? this.at.get(element) : undefined;
      if (read !== undefined && this.copied >= 0 && read === this.copied + 1) {
        // The next element read after the one just copied: the copy runs on over the separator.
        const piece = this.pieces[this.pieces.length - 1] as { from: number; len: number };
        piece.len = offset + held.ends[read]! - piece.from;
        this.copied = read;
        this.sourceEnd = piece.from + piece.len;
        continue;
      }
      this.put(i === 0 ? "\n    " : ",\n    ");
      const from = read === undefined ? -1 : offset + held.starts[read]!;
      if (read === undefined || from < this.sourceEnd) {
        this.put(elementText(element, i));
        continue;
      }
      this.flush();
      this.pieces.push({ from, len: held.ends[read]! - held.starts[read]! });
      this.copied = read;
      this.sourceEnd = offset + held.ends[read]!;
    }
  }

  private flush(): void {
    if (this.text.length > 0) this.pieces.push({ bytes: Buffer.from(this.text, "utf8") });
    this.text = "";
  }

  done(): Buffer {
    this.flush();
    return assembleInPlace(this.spare.memory, this.pieces);
  }
}

/** `[\n  {\n    "` before an element's index, in its wrapper. */
const PREFIX_AT_2 = 11;
/** The wrapper of an element JSON.stringify leaves out of an object. */
const EMPTY_AT_2 = JSON.stringify([{}], null, 2);

/** One buffer filled from the start, grown (copied) only when a piece does not fit. */
class Sink implements Out {
  private bytes: Buffer;
  private used = 0;
  constructor(value: Plain, memory: Buffer | undefined) {
    // The memory of the state file read before (its size and some room), else a guess.
    let guess = 64 * 1024;
    for (const member of Object.values(value)) if (Array.isArray(member)) guess += member.length * 512;
    this.bytes = memory ?? Buffer.allocUnsafe(guess);
  }

  elements(array: readonly unknown[]): void {
    for (let i = 0; i < array.length; i++) {
      this.put(i === 0 ? "\n    " : ",\n    ");
      this.put(elementText(array[i], i));
    }
  }

  put(text: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair, 2 units, 4 bytes).
    if (this.bytes.length - this.used < text.length * 3) this.fit(Buffer.byteLength(text, "utf8"));
    this.used += this.bytes.write(text, this.used, "utf8");
  }

  private fit(length: number): void {
    if (this.bytes.length - this.used >= length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + length));
    this.bytes.copy(bigger, 0, 0, this.used);
    this.bytes = bigger;
  }

  done(): Buffer {
    return this.bytes.subarray(0, this.used);
  }
}
