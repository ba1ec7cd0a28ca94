// A large state file's bytes parsed as JSON.parse parses their text, without that text.
//
// Why: at 10,000 tasks execution.json is 3.6 MB; decoding it whole makes a 3.6 MB string on fresh
// memory (some 900 page faults of 20–75 µs each on a small VM) only to be parsed and dropped.
// Written by dotagent (state-json.ts: JSON.stringify(value, null, 2)), its long array member has
// its elements at depth 2, each object element ending in `}` followed by `,\n    {`. The bytes
// are cut at such separators into batches of about 64 kB, each parsed on its own; the rest of the
// file is parsed with an empty array in the elements' place.
//
// Why it is the same value: a raw line end never occurs inside a JSON string, so each separator's
// `}`, `,` and `{` are tokens. Each batch is parsed as `[` + its elements + `]`: a cut inside a
// nested value leaves some batch with an unclosed bracket, which does not parse. The rest of the
// file (before the first element, after the last) is parsed with an empty array in their place,
// after a scan of its tokens shows that array to be the value of a top-level member whose key
// occurs once. Then the file's text is that object with the elements in the array, which is what
// JSON.parse returns for it. Anything else (a hand-edited layout, a corrupt file) is decoded and
// parsed whole as before, so its value and its error message are JSON.parse's.
import { decodeJson } from "../schema/json.js";

/** Files below this are decoded whole (a cut costs more than it saves). */
const PIECES_FROM = 1024 * 1024;
const BATCH = 64 * 1024;
/** The text around the array is scanned in JavaScript: a long one is decoded whole instead. */
const AROUND_AT_MOST = 64 * 1024;
const SEPARATOR = Buffer.from("},\n    {");
const OPENING = Buffer.from("[\n    {");
const CLOSING = Buffer.from("}\n  ]");

/** The bytes of a state file as JSON: JSON.parse of their UTF-8 text, or its message. */
export function decodeJsonBytes(bytes: Buffer): { ok: true; value: unknown } | { ok: false; message: string } {
  if (bytes.length >= PIECES_FROM) {
    const value = parseInPieces(bytes);
    if (value !== undefined) return { ok: true, value };
  }
  return decodeJson(bytes.toString("utf8"));
}

function parseInPieces(bytes: Buffer): unknown {
  const separator = bytes.indexOf(SEPARATOR);
  const opening = separator < 0 ? -1 : bytes.lastIndexOf(OPENING, separator);
  if (opening < 0) return undefined;
  const first = opening + OPENING.length - 1;
  const elements: unknown[] = [];
  // A batch ends at the `}` of the first separator past its 64 kB; the next starts after that
  // separator's comma. The array ends at the first `}\n  ]` after the last cut.
  let from = first;
  for (let cut = bytes.indexOf(SEPARATOR, from + BATCH); cut >= 0; cut = bytes.indexOf(SEPARATOR, from + BATCH)) {
    if (!parseElements(bytes, from, cut + 1, elements)) return undefined;
    from = cut + 2;
  }
  const last = bytes.indexOf(CLOSING, from);
  if (last < 0 || !parseElements(bytes, from, last + 1, elements)) return undefined;
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
  const held = (value as Record<string, unknown>)[key];
  if (!Array.isArray(held) || held.length !== 0) return undefined;
  (value as Record<string, unknown>)[key] = elements;
  return value;
}

/** Parses `[` + bytes[from, to) + `]`, pushing its elements; false when it does not parse. */
function parseElements(bytes: Buffer, from: number, to: number, into: unknown[]): boolean {
  let batch: unknown;
  try {
    batch = JSON.parse(`[${bytes.toString("utf8", from, to)}]`);
  } catch {
    return false;
  }
  for (const element of batch as unknown[]) into.push(element);
  return true;
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
