// A large state file's bytes parsed as JSON.parse parses their text, without that text.
//
// Why: at 10,000 tasks execution.json is 3.6 MB; decoding it whole makes a 3.6 MB string on fresh
// memory (some 900 page faults of 20–75 µs each on a small VM) only to be parsed and dropped.
// Written by dotagent (state-json.ts: JSON.stringify(value, null, 2)), its long array member has
// its elements at depth 2, each object element ending in `}` followed by `,\n    {`. The bytes
// are cut at such separators, each element parsed on its own; the rest of the file is parsed with
// an empty array in the elements' place.
//
// Why it is the same value: a raw line end never occurs inside a JSON string, so each separator's
// `}`, `,` and `{` are tokens. Each element's bytes are parsed alone: a cut inside a nested value
// leaves some piece with an unclosed bracket, which does not parse. The rest of the file (before
// the first element, after the last) is parsed with an empty array in their place, after a scan
// of its tokens shows that array to be the value of a top-level member whose key occurs once.
// Then the file's text is that object with the elements in the array, which is what JSON.parse
// returns for it. Anything else (a hand-edited layout, a corrupt file) is decoded and parsed whole
// as before, so its value and its error message are JSON.parse's.
//
// Each element's bytes are known exactly, so the next write can copy an element nobody replaced
// from them instead of encoding it again (state-json.ts). For that promise the elements are frozen:
// a change to one in place throws rather than being lost.
import { isAscii } from "node:buffer";
import { decodeJson } from "../schema/json.js";

/** Files below this are decoded whole (a cut costs more than it saves). */
const PIECES_FROM = 1024 * 1024;
/** The text around the array is scanned in JavaScript: a long one is decoded whole instead. */
const AROUND_AT_MOST = 64 * 1024;
const SEPARATOR = Buffer.from("},\n    {");
const OPENING = Buffer.from("[\n    {");
const CLOSING = Buffer.from("}\n  ]");

/**
 * The elements of a state file's long array as parsed, frozen, with where each one's bytes lie in
 * the file (`starts[i]` to `ends[i]`, the `{` to the `}`; between two elements lies `,\n    `).
 */
export interface HeldElements {
  readonly elements: readonly unknown[];
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

export type DecodedBytes = { ok: true; value: unknown; held?: HeldElements } | { ok: false; message: string };

/** The bytes of a state file as JSON: JSON.parse of their UTF-8 text, or its message. */
export function decodeJsonBytes(bytes: Buffer): DecodedBytes {
  if (bytes.length >= PIECES_FROM) {
    const pieces = parseInPieces(bytes);
    if (pieces !== undefined) return { ok: true, ...pieces };
  }
  return decodeJson(bytes.toString("utf8"));
}

function parseInPieces(bytes: Buffer): { value: unknown; held: HeldElements } | undefined {
  const separator = bytes.indexOf(SEPARATOR);
  const opening = separator < 0 ? -1 : bytes.lastIndexOf(OPENING, separator);
  if (opening < 0) return undefined;
  const first = opening + OPENING.length - 1;
  // ASCII bytes (the usual file; JSON.stringify writes other characters as they are, so a title
  // can bring some) are the same text read as latin1, a plain copy without UTF-8's decoding: one
  // check of the whole file (some 0.2 ms at 3.6 MB) against a decoder run per element. Measured
  // at 10,000 tasks: 1.65 G instructions for `task complete` against 1.67–1.73 G. One latin1
  // string of the whole file, sliced per element, was as fast, with some 450 more page faults.
  const encoding = isAscii(bytes) ? "latin1" : "utf8";
  const piece = (from: number, to: number) => bytes.toString(encoding, from, to);
  const elements: unknown[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  // An element ends at the `}` of a separator and the next starts at its `{`. The array ends at
  // the first `}\n  ]` after the last cut.
  let from = first;
  for (let cut = separator; cut >= 0; cut = bytes.indexOf(SEPARATOR, from)) {
    if (!parseElement(piece(from, cut + 1), elements)) return undefined;
    starts.push(from);
    ends.push(cut + 1);
    from = cut + SEPARATOR.length - 1;
  }
  const last = bytes.indexOf(CLOSING, from);
  if (last < 0 || !parseElement(piece(from, last + 1), elements)) return undefined;
  starts.push(from);
  ends.push(last + 1);
  const end = last + 1;
  if (first + (bytes.length - end) > AROUND_AT_MOST) return undefined;
  const key = memberAround(bytes, first, end);
  if (key === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8", 0, first) + bytes.toString("utf8", end));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const placeholder = (value as Record<string, unknown>)[key];
  if (!Array.isArray(placeholder) || placeholder.length !== 0) return undefined;
  (value as Record<string, unknown>)[key] = elements;
  // The held list is its own: a change to the value's array cannot shift what lies where.
  return { value, held: { elements: elements.slice(), starts, ends } };
}

/** Parses text as one value, frozen, and pushes it; false when it does not parse. */
function parseElement(text: string, into: unknown[]): boolean {
  let element: unknown;
  try {
    element = JSON.parse(text);
  } catch {
    return false;
  }
  into.push(deepFreeze(element));
  return true;
}

/** A parsed JSON value made unchangeable, every object and array in it (without recursion: JSON.parse takes any depth). */
function deepFreeze(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const open: object[] = [value];
  for (let item = open.pop(); item !== undefined; item = open.pop()) {
    Object.freeze(item);
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        const inner: unknown = item[i];
        if (typeof inner === "object" && inner !== null) open.push(inner);
      }
    } else
      for (const key in item) {
        const inner = (item as Record<string, unknown>)[key];
        if (typeof inner === "object" && inner !== null) open.push(inner);
      }
  }
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * The key of the top-level member whose array value holds bytes[first, end), when the tokens of
 * the text around them (valid JSON with an empty array in their place, else JSON.parse refuses it
 * after) show the cut to lie directly in such an array, and that key occurs once at the top level.
 */
function memberAround(bytes: Buffer, first: number, end: number): string | undefined {
  const keys: string[] = [];
  const open: number[] = [];
  let keyOfCut: string | undefined;
  let lastString: [number, number] | undefined;
  const scan = (from: number, to: number) => {
    for (let at = from; at < to; at++) {
      const c = bytes[at]!;
      if (c === QUOTE) {
        const start = at;
        for (at++; at < to && bytes[at] !== QUOTE; at++) if (bytes[at] === BACKSLASH) at++;
        lastString = [start, at + 1];
      } else if (c === 0x7b || c === 0x5b) open.push(c);
      else if (c === 0x7d || c === 0x5d) open.pop();
      else if (c === COLON && open.length === 1 && lastString !== undefined)
        keys.push(JSON.parse(bytes.toString("utf8", lastString[0], lastString[1])) as string);
    }
  };
  try {
    scan(0, first);
    if (open.length !== 2 || open[0] !== 0x7b || open[1] !== 0x5b) return undefined;
    keyOfCut = keys[keys.length - 1];
    scan(end, bytes.length);
  } catch {
    return undefined;
  }
  // A __proto__ member would take the elements as the object's prototype when assigned.
  if (keyOfCut === undefined || keyOfCut === "__proto__") return undefined;
  return keys.indexOf(keyOfCut) === keys.lastIndexOf(keyOfCut) ? keyOfCut : undefined;
}
