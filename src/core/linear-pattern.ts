// The regular expressions of workflow definitions (`when.matches`, SPEC §20), matched in time
// linear in the text they test.
//
// THREAT: a definition is untrusted input (anyone who can write the project wrote it, an agent
// too), and its pattern runs whenever a workflow is planned: `init`, `status`, `resume` and every
// hook. JavaScript's RegExp backtracks: `^(\w+\s?)+$` on an ordinary request that ends in "!"
// takes exponential time, and every one of those commands hangs for good. So no definition
// pattern ever reaches RegExp's matcher; this module matches them instead.
//
// GUARANTEE: `compilePattern` accepts a subset of JavaScript's `u`-mode syntax and refuses the
// rest with a reason; for what it accepts, `testPattern` answers exactly what
// `new RegExp(source, "u").test(text)` answers (a search anywhere in the text, case-sensitive;
// linear-pattern.test.ts compares the two on random patterns and texts; the one difference is
// V8's own: it also tries the middle of a surrogate pair for an empty match, which ECMA-262 does
// not, so `\B` alone matches "a😀a" there and not here). It simulates the
// pattern's automaton (Thompson's construction: one set of states per character, no
// backtracking), in at most (text length + 1) × 2 × program size steps. A program has at most
// MAX_PROGRAM instructions (counts at most MAX_COUNT), so the work per character is bounded by a
// constant however the pattern nests; the caller bounds the text (MAX_SUBJECT).
//
// The subset (what a yes/no question needs): literal characters; `.` (any character but a line
// terminator); classes `[…]` and `[^…]` with ranges; `\d \w \s \D \W \S`; `\b \B`; anchors `^ $`
// (the text's start and end: patterns have no flags); groups `(…)`, `(?:…)`, `(?<name>…)` (as
// plain groups: nothing reads a capture); `|`; `* + ? {n} {n,} {n,m}` and their lazy forms
// (greedy or lazy, the answer is the same); escapes `\t \n \v \f \r \0 \xHH \uHHHH \u{H…}` and
// `\` before a syntax character. Refused: backreferences (`\1`, `\k<name>`: matching them is not
// linear, NP-hard in general), lookahead and lookbehind, `\p{…}` (its Unicode tables would weigh
// on every start-up), `\cX`, escaped surrogates, `(?flags:…)`.
//
// Out of scope: the pattern's syntax as JavaScript would judge it (the caller first checks that
// `new RegExp(source, "u")` accepts it, so an accepted pattern is always valid JavaScript too);
// Unicode case folding (no `i` flag exists for patterns).

/**
 * The longest text a pattern is tested on (UTF-16 code units): a longer value does not match, as
 * a value that is not a string does not (SPEC §20). With MAX_PROGRAM it bounds one test to about
 * 10^8 steps, half a second, whatever the definition says.
 */
export const MAX_SUBJECT = 65_536;
/** The most a count `{n,m}` may say. */
export const MAX_COUNT = 100;
/** The most instructions a pattern compiles to (counts expand: `(?:a{10}){10}` takes 101, its end included). */
export const MAX_PROGRAM = 1000;

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;

const AT_START = 0;
const AT_END = 1;
const AT_WORD_BOUNDARY = 2;
const AT_NOT_WORD_BOUNDARY = 3;

/** A compiled pattern: instructions as parallel arrays, character sets as sorted disjoint [lo, hi] pairs. */
export interface Pattern {
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly sets: readonly Int32Array[];
}

export type Compiled = { ok: true; pattern: Pattern } | { ok: false; reason: string };

type Node =
  | { t: "set"; ranges: number[] }
  | { t: "assert"; kind: number }
  | { t: "seq"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "repeat"; node: Node; min: number; max: number };

class Refused {
  constructor(readonly reason: string) {}
}

const MAX_CODE_POINT = 0x10ffff;
const DIGITS = [0x30, 0x39];
const WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
// WhiteSpace and LineTerminator of ECMA-262 (what `\s` means).
const SPACE = [
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f,
  0x3000, 0x3000, 0xfeff, 0xfeff,
];
const LINE_TERMINATORS = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const SYNTAX = "^$\\.*+?()[]{}|/";

/** Compiles `source` (a definition's `when.matches`), or says why it is refused. */
export function compilePattern(source: string): Compiled {
  try {
    const node = parse(source);
    const size = sizeOf(node) + 1;
    if (size > MAX_PROGRAM)
      return { ok: false, reason: `its counts expand it to ${size} steps, over ${MAX_PROGRAM}: make them smaller` };
    return { ok: true, pattern: emit(node, size) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** What RegExp itself refuses (the caller checks with RegExp first, so this is a second guard, worded once). */
const INVALID = "not a regular expression";
const LINEAR = "patterns run in linear time and";
const refuse = (reason: string): never => {
  throw new Refused(reason);
};

/** The pattern's syntax tree; anything outside the subset is refused. */
function parse(s: string): Node {
  let i = 0;
  const peek = () => (i < s.length ? s.codePointAt(i)! : -1);
  const next = () => {
    const c = peek();
    if (c < 0) refuse(INVALID);
    i += c > 0xffff ? 2 : 1;
    return c;
  };
  const eat = (text: string) => s.startsWith(text, i) && ((i += text.length), true);
  const quantifierNext = () => "*+?{".includes(s[i] ?? "x");

  const disjunction = (): Node => {
    const items = [alternative()];
    while (eat("|")) items.push(alternative());
    return items.length === 1 ? items[0]! : { t: "alt", items };
  };
  const alternative = (): Node => {
    const items: Node[] = [];
    while (i < s.length && s[i] !== "|" && s[i] !== ")") items.push(term());
    return items.length === 1 ? items[0]! : { t: "seq", items };
  };
  const term = (): Node => {
    const kind = eat("^")
      ? AT_START
      : eat("$")
        ? AT_END
        : eat("\\b")
          ? AT_WORD_BOUNDARY
          : eat("\\B")
            ? AT_NOT_WORD_BOUNDARY
            : -1;
    if (kind < 0) return quantified(atom());
    if (quantifierNext()) refuse(INVALID); // an anchor repeats nothing
    return { t: "assert", kind };
  };
  const atom = (): Node => {
    const c = next();
    if (c === 0x2e /* . */) return { t: "set", ranges: complement(LINE_TERMINATORS) };
    if (c === 0x28 /* ( */) return group();
    if (c === 0x5b /* [ */) return { t: "set", ranges: charClass() };
    if (c === 0x5c /* \ */) {
      const e = escape(false);
      return { t: "set", ranges: typeof e === "number" ? [e, e] : e };
    }
    // Nothing to repeat, or a lone ) ] } (RegExp's u mode refuses both).
    if ("*+?{}])".includes(String.fromCodePoint(c))) refuse(INVALID);
    return { t: "set", ranges: [c, c] };
  };
  const group = (): Node => {
    if (eat("?")) {
      if (eat("=") || eat("!") || eat("<=") || eat("<!"))
        refuse(`a lookahead or lookbehind: ${LINEAR} do not look around`);
      if (eat("<")) {
        const name =
          /^[A-Za-z_$][\w$]*>/.exec(s.slice(i, i + 80)) ?? refuse("a group name other than letters, digits, _ and $");
        i += name[0].length;
      } else if (!eat(":")) refuse("(?…) other than (?:…) or (?<name>…): patterns take no flags");
    }
    const node = disjunction();
    if (!eat(")")) refuse(INVALID);
    return node;
  };
  const quantified = (node: Node): Node => {
    let min = 0;
    let max = Infinity;
    if (eat("+")) min = 1;
    else if (eat("?")) max = 1;
    else if (s[i] === "{") {
      const count = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(i, i + 40)) ?? refuse(INVALID);
      min = Number(count[1]);
      max = count[2] === undefined ? min : count[3] === "" ? Infinity : Number(count[3]);
      if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT))
        refuse(`the count ${count[0]} is over ${MAX_COUNT}: use + or * for "many"`);
      if (min > max) refuse(INVALID);
      i += count[0].length;
    } else if (!eat("*")) return node;
    eat("?"); // lazy: the same yes or no
    if (quantifierNext()) refuse(INVALID);
    return { t: "repeat", node, min, max };
  };
  /** A class `[…]` after its "[": sorted ranges. */
  const charClass = (): number[] => {
    const negate = eat("^");
    let ranges: number[] = [];
    while (!eat("]")) {
      const from = classAtom();
      if (s[i] === "-" && i + 1 < s.length && s[i + 1] !== "]") {
        i++;
        const to = classAtom();
        // A range from or to \d, \w or \s, or out of order.
        if (typeof from !== "number" || typeof to !== "number" || from > to) refuse(INVALID);
        ranges = union(ranges, [from as number, to as number]);
      } else ranges = union(ranges, typeof from === "number" ? [from, from] : from);
    }
    return negate ? complement(ranges) : ranges;
  };
  /** One character of a class (a code point), or a class escape's ranges. */
  const classAtom = (): number | number[] => {
    const c = next();
    if (c !== 0x5c) return c;
    if (eat("b")) return 0x08;
    if (eat("-")) return 0x2d;
    return escape(true);
  };
  /** An escape after its "\\": the character it stands for, or a class escape's ranges (\\d, \\w, \\s and their complements). */
  const escape = (inClass: boolean): number | number[] => {
    const ch = String.fromCodePoint(next());
    const known = CLASS_ESCAPES[ch] ?? CONTROL_ESCAPES[ch];
    if (known !== undefined) return known;
    if (ch === "0") return /\d/.test(s[i] ?? "") ? refuse(INVALID) : 0;
    if (ch === "x" || ch === "u") {
      const hex =
        (ch === "x" ? /^[0-9A-Fa-f]{2}/ : /^(?:[0-9A-Fa-f]{4}|\{[0-9A-Fa-f]{1,6}\})/).exec(s.slice(i, i + 8)) ??
        refuse(INVALID);
      const v = parseInt(hex[0].replace(/[{}]/g, ""), 16);
      if (v > MAX_CODE_POINT) refuse(INVALID);
      if (v >= 0xd800 && v <= 0xdfff) refuse("an escaped surrogate: write the character, or \\u{…}");
      i += hex[0].length;
      return v;
    }
    if (/[1-9k]/.test(ch)) refuse(`a backreference: ${LINEAR} cannot refer back`);
    if (ch === "p" || ch === "P") refuse("\\p{…} (Unicode properties): use a class like [A-Za-z]");
    if (ch === "c") refuse("\\c (a control character): use \\x or \\u");
    if (SYNTAX.includes(ch) || (inClass && ch === "-")) return ch.codePointAt(0)!;
    return refuse(`the escape \\${ch}, which patterns do not know`);
  };

  const node = disjunction();
  if (i < s.length) refuse(INVALID); // an unmatched )
  return node;
}

const CLASS_ESCAPES: Record<string, number[]> = {
  d: DIGITS,
  D: complement(DIGITS),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

/** Sorted disjoint ranges: `a` ∪ `b` (both flat [lo, hi, …] lists). */
function union(a: readonly number[], b: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (const list of [a, b]) for (let k = 0; k < list.length; k += 2) pairs.push([list[k]!, list[k + 1]!]);
  pairs.sort((p, q) => p[0] - q[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    if (out.length > 0 && lo <= out[out.length - 1]! + 1) out[out.length - 1] = Math.max(out[out.length - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

function complement(ranges: readonly number[]): number[] {
  const out: number[] = [];
  let from = 0;
  for (let k = 0; k < ranges.length; k += 2) {
    if (ranges[k]! > from) out.push(from, ranges[k]! - 1);
    from = ranges[k + 1]! + 1;
  }
  if (from <= MAX_CODE_POINT) out.push(from, MAX_CODE_POINT);
  return out;
}

/** Instructions `node` compiles to (a float: a nest of counts can be astronomically large, and is refused). */
function sizeOf(node: Node): number {
  switch (node.t) {
    case "set":
    case "assert":
      return 1;
    case "seq":
      return node.items.reduce((n, item) => n + sizeOf(item), 0);
    case "alt":
      return node.items.reduce((n, item) => n + sizeOf(item), 0) + 2 * (node.items.length - 1);
    case "repeat": {
      const body = sizeOf(node.node);
      if (node.max === Infinity) return node.min === 0 ? body + 2 : node.min * body + 1;
      return node.min * body + (node.max - node.min) * (body + 1);
    }
  }
}

function emit(root: Node, size: number): Pattern {
  const op = new Uint8Array(size);
  const x = new Int32Array(size);
  const y = new Int32Array(size);
  const sets: Int32Array[] = [];
  let pc = 0;
  const put = (code: number, a = 0, b = 0): number => {
    op[pc] = code;
    x[pc] = a;
    y[pc] = b;
    return pc++;
  };
  const gen = (node: Node): void => {
    switch (node.t) {
      case "set":
        put(CHAR, sets.push(Int32Array.from(node.ranges)) - 1);
        return;
      case "assert":
        put(ASSERT, node.kind);
        return;
      case "seq":
        node.items.forEach(gen);
        return;
      case "alt": {
        // SPLIT(first, next split) … each alternative ends with a JMP past the last.
        const jumps: number[] = [];
        node.items.forEach((item, k) => {
          const last = k === node.items.length - 1;
          const split = last ? -1 : put(SPLIT);
          if (!last) x[split] = pc;
          gen(item);
          if (!last) {
            jumps.push(put(JMP));
            y[split] = pc;
          }
        });
        for (const j of jumps) x[j] = pc;
        return;
      }
      case "repeat": {
        const { node: body, min, max } = node;
        for (let k = 0; k < (max === Infinity && min > 0 ? min - 1 : min); k++) gen(body);
        if (max === Infinity) {
          if (min > 0) {
            // The last required copy loops back to itself: x+.
            const start = pc;
            gen(body);
            put(SPLIT, start, pc + 1);
          } else {
            const split = put(SPLIT, pc + 1);
            gen(body);
            put(JMP, split);
            y[split] = pc;
          }
          return;
        }
        // Optional copies, each skipping to the end: x(?:x(?:x)?)?
        const exits: number[] = [];
        for (let k = min; k < max; k++) {
          const split = put(SPLIT, pc + 1);
          exits.push(split);
          gen(body);
        }
        for (const split of exits) y[split] = pc;
        return;
      }
    }
  };
  gen(root);
  put(MATCH);
  return { op, x, y, sets };
}

function inSet(ranges: Int32Array, c: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < ranges[2 * mid]!) hi = mid - 1;
    else if (c > ranges[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

const isWord = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);

/** The states the automaton is in at one position: a sparse set of instruction numbers. */
interface StateSet {
  readonly dense: Int32Array;
  readonly sparse: Int32Array;
  size: number;
}
const stateSet = (n: number): StateSet => ({ dense: new Int32Array(n), sparse: new Int32Array(n), size: 0 });

/** Whether `pattern` matches anywhere in `text`, and the steps it took (at most (length + 1) × 2 × program size). */
export function runPattern(pattern: Pattern, text: string): { matched: boolean; steps: number } {
  const { op, x, y, sets } = pattern;
  const n = op.length;
  let current = stateSet(n);
  let following = stateSet(n);
  const stack = new Int32Array(2 * n + 2);
  let steps = 0;
  let matched = false;
  // Every state reachable from `start` without reading a character, at a position between `before` and `after` (-1: none).
  const close = (set: StateSet, start: number, before: number, after: number): void => {
    let top = 0;
    stack[top++] = start;
    while (top > 0) {
      const pc = stack[--top]!;
      const k = set.sparse[pc]!;
      if (k < set.size && set.dense[k] === pc) continue; // in the set already
      set.sparse[pc] = set.size;
      set.dense[set.size++] = pc;
      steps++;
      switch (op[pc]) {
        case JMP:
          stack[top++] = x[pc]!;
          break;
        case SPLIT:
          stack[top++] = y[pc]!;
          stack[top++] = x[pc]!;
          break;
        case ASSERT: {
          const kind = x[pc];
          const boundary = (before >= 0 && isWord(before)) !== (after >= 0 && isWord(after));
          const holds =
            kind === AT_START
              ? before < 0
              : kind === AT_END
                ? after < 0
                : kind === AT_WORD_BOUNDARY
                  ? boundary
                  : !boundary;
          if (holds) stack[top++] = pc + 1;
          break;
        }
        case MATCH:
          matched = true;
          break;
      }
    }
  };
  let before = -1;
  let i = 0;
  for (;;) {
    const c = i < text.length ? text.codePointAt(i)! : -1;
    // A search: a new attempt starts at every position (as RegExp.prototype.test without flags).
    close(current, 0, before, c);
    if (matched) return { matched, steps };
    if (c < 0) return { matched, steps };
    i += c > 0xffff ? 2 : 1;
    const after = i < text.length ? text.codePointAt(i)! : -1;
    following.size = 0;
    for (let k = 0; k < current.size; k++) {
      const pc = current.dense[k]!;
      steps++;
      if (op[pc] === CHAR && inSet(sets[x[pc]!]!, c)) close(following, pc + 1, c, after);
    }
    if (matched) return { matched, steps };
    [current, following] = [following, current];
    before = c;
  }
}
