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
const SPACE = [0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff];
const LINE_TERMINATORS = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const SYNTAX = "^$\\.*+?()[]{}|/";

/** Compiles `source` (a definition's `when.matches`), or says why it is refused. */
export function compilePattern(source: string): Compiled {
  try {
    const parser = new Parser(source);
    const node = parser.parse();
    const size = sizeOf(node) + 1;
    if (size > MAX_PROGRAM) return { ok: false, reason: `it expands to ${size > 1e9 ? "over a billion" : size.toLocaleString("en-US")} steps, over the ${MAX_PROGRAM.toLocaleString("en-US")} a pattern may take: make its counts ({n,m}) smaller` };
    return { ok: true, pattern: emit(node, size) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    throw error;
  }
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const node = this.disjunction();
    if (this.i < this.s.length) throw new Refused(`an unmatched ")" at character ${this.i + 1}`);
    return node;
  }

  private peek(): number {
    return this.i < this.s.length ? this.s.codePointAt(this.i)! : -1;
  }

  private next(): number {
    const c = this.peek();
    if (c < 0) throw new Refused("it ends in the middle of an escape, a group or a class");
    this.i += c > 0xffff ? 2 : 1;
    return c;
  }

  private eat(text: string): boolean {
    if (!this.s.startsWith(text, this.i)) return false;
    this.i += text.length;
    return true;
  }

  private disjunction(): Node {
    const items = [this.alternative()];
    while (this.eat("|")) items.push(this.alternative());
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private alternative(): Node {
    const items: Node[] = [];
    while (this.i < this.s.length && this.peek() !== 0x7c /* | */ && this.peek() !== 0x29 /* ) */) items.push(this.term());
    return items.length === 1 ? items[0]! : { t: "seq", items };
  }

  private term(): Node {
    const c = this.peek();
    if (c === 0x5e /* ^ */ || c === 0x24 /* $ */) {
      this.i++;
      return this.noQuantifier({ t: "assert", kind: c === 0x5e ? AT_START : AT_END });
    }
    if (this.eat("\\b")) return this.noQuantifier({ t: "assert", kind: AT_WORD_BOUNDARY });
    if (this.eat("\\B")) return this.noQuantifier({ t: "assert", kind: AT_NOT_WORD_BOUNDARY });
    return this.quantified(this.atom());
  }

  private noQuantifier(node: Node): Node {
    if ("*+?{".includes(this.s[this.i] ?? "x")) throw new Refused("a count after an anchor or \\b: it repeats nothing");
    return node;
  }

  private atom(): Node {
    const c = this.next();
    switch (c) {
      case 0x2e /* . */:
        return { t: "set", ranges: complement(LINE_TERMINATORS) };
      case 0x28 /* ( */:
        return this.group();
      case 0x5b /* [ */:
        return { t: "set", ranges: this.charClass() };
      case 0x5c /* \ */: {
        const e = this.escape(false);
        return { t: "set", ranges: typeof e === "number" ? [e, e] : e };
      }
      case 0x2a:
      case 0x2b:
      case 0x3f:
      case 0x7b:
        throw new Refused(`"${String.fromCodePoint(c)}" at character ${this.i} has nothing to repeat`);
      case 0x29:
      case 0x5d:
      case 0x7d:
        throw new Refused(`a lone "${String.fromCodePoint(c)}" at character ${this.i}: escape it as \\${String.fromCodePoint(c)}`);
      default:
        return { t: "set", ranges: [c, c] };
    }
  }

  private group(): Node {
    if (this.eat("?")) {
      if (this.eat(":")) return this.closeGroup();
      if (this.eat("=") || this.eat("!")) throw new Refused("a lookahead (?=…) or (?!…): dotagent's patterns run in linear time and do not look around; match the text itself");
      if (this.eat("<=") || this.eat("<!")) throw new Refused("a lookbehind (?<=…) or (?<!…): dotagent's patterns run in linear time and do not look around; match the text itself");
      if (this.eat("<")) {
        const name = /^[A-Za-z_$][A-Za-z0-9_$]*>/.exec(this.s.slice(this.i, this.i + 80));
        if (name === null) throw new Refused("a group name other than letters, digits, _ and $: use (?:…)");
        this.i += name[0].length;
        return this.closeGroup();
      }
      throw new Refused("(?…) other than (?:…) or (?<name>…): patterns take no flags or modifiers");
    }
    return this.closeGroup();
  }

  private closeGroup(): Node {
    const node = this.disjunction();
    if (!this.eat(")")) throw new Refused("a group that is not closed with )");
    return node;
  }

  private quantified(node: Node): Node {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === 0x2a) [min, max] = [0, Infinity];
    else if (c === 0x2b) [min, max] = [1, Infinity];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b) {
      const count = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i, this.i + 40));
      if (count === null) throw new Refused(`a "{" at character ${this.i + 1} that is no count {n}, {n,} or {n,m}: escape it as \\{`);
      min = Number(count[1]);
      max = count[2] === undefined ? min : count[3] === "" ? Infinity : Number(count[3]);
      if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) throw new Refused(`the count ${count[0]} is over ${MAX_COUNT}: use + or * for "many"`);
      if (min > max) throw new Refused(`the count ${count[0]} is out of order`);
      this.i += count[0].length - 1;
    } else return node;
    this.i++;
    this.eat("?"); // lazy: the same yes or no
    if ("*+?{".includes(this.s[this.i] ?? "x")) throw new Refused(`two counts in a row at character ${this.i + 1}: group the first, (?:…)`);
    return { t: "repeat", node, min, max };
  }

  /** A class `[…]` after its "[": sorted ranges. */
  private charClass(): number[] {
    const negate = this.eat("^");
    let ranges: number[] = [];
    while (!this.eat("]")) {
      const from = this.classAtom();
      if (this.peek() === 0x2d /* - */ && this.s[this.i + 1] !== "]" && this.i + 1 < this.s.length) {
        this.i++;
        const to = this.classAtom();
        if (typeof from !== "number" || typeof to !== "number") throw new Refused("a range with \\d, \\w or \\s at one end");
        if (from > to) throw new Refused(`the range ${String.fromCodePoint(from)}-${String.fromCodePoint(to)} is out of order`);
        ranges = union(ranges, [from, to]);
      } else ranges = union(ranges, typeof from === "number" ? [from, from] : from);
    }
    return negate ? complement(ranges) : ranges;
  }

  /** One character of a class (a code point), or a class escape's ranges. */
  private classAtom(): number | number[] {
    const c = this.next();
    if (c !== 0x5c) return c;
    if (this.eat("b")) return 0x08;
    if (this.eat("-")) return 0x2d;
    return this.escape(true);
  }

  /** An escape after its "\": the character it stands for, or a class escape's ranges (\d, \w, \s and their complements). */
  private escape(inClass: boolean): number | number[] {
    const c = this.next();
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case "d":
        return DIGITS;
      case "D":
        return complement(DIGITS);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "t":
        return 9;
      case "n":
        return 10;
      case "v":
        return 11;
      case "f":
        return 12;
      case "r":
        return 13;
      case "0":
        if (/\d/.test(this.s[this.i] ?? "")) throw new Refused("\\0 followed by a digit");
        return 0;
      case "x": {
        const hex = /^[0-9A-Fa-f]{2}/.exec(this.s.slice(this.i, this.i + 2));
        if (hex === null) throw new Refused("\\x without two hex digits");
        this.i += 2;
        return parseInt(hex[0], 16);
      }
      case "u": {
        const hex = /^(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]{1,6})\})/.exec(this.s.slice(this.i, this.i + 8));
        if (hex === null) throw new Refused("\\u without four hex digits or {hex}");
        const v = parseInt(hex[1] ?? hex[2]!, 16);
        if (v > MAX_CODE_POINT) throw new Refused("\\u{…} beyond U+10FFFF");
        if (v >= 0xd800 && v <= 0xdfff) throw new Refused("an escaped surrogate (\\uD800–\\uDFFF): write the character itself, or \\u{…}");
        this.i += hex[0].length;
        return v;
      }
      case "c":
        throw new Refused("\\c (a control character) is not supported: use \\x or \\u");
      case "p":
      case "P":
        throw new Refused("\\p{…} (Unicode properties) is not supported: use a class like [A-Za-z]");
      case "k":
        throw new Refused("a backreference \\k<…>: dotagent's patterns run in linear time and cannot refer back; match the text itself");
      default:
        if (c >= 0x31 && c <= 0x39) throw new Refused(`a backreference \\${ch}: dotagent's patterns run in linear time and cannot refer back; match the text itself`);
        if (SYNTAX.includes(ch) || (inClass && ch === "-")) return c;
        throw new Refused(`the escape \\${ch} is not one patterns know`);
    }
  }
}

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

const isWord = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);

/** The states the automaton is in at one position: a sparse set of instruction numbers. */
class StateSet {
  readonly dense: Int32Array;
  private readonly sparse: Int32Array;
  size = 0;
  constructor(n: number) {
    this.dense = new Int32Array(n);
    this.sparse = new Int32Array(n);
  }
  has(pc: number): boolean {
    const k = this.sparse[pc]!;
    return k < this.size && this.dense[k] === pc;
  }
  add(pc: number): void {
    this.sparse[pc] = this.size;
    this.dense[this.size++] = pc;
  }
}

/** Whether `pattern` matches anywhere in `text`, and the steps it took (at most (length + 1) × 2 × program size). */
export function runPattern(pattern: Pattern, text: string): { matched: boolean; steps: number } {
  const { op, x, y, sets } = pattern;
  const n = op.length;
  let current = new StateSet(n);
  let following = new StateSet(n);
  const stack = new Int32Array(2 * n + 2);
  let steps = 0;
  let matched = false;
  // Every state reachable from `start` without reading a character, at a position between `before` and `after` (-1: none).
  const close = (set: StateSet, start: number, before: number, after: number): void => {
    let top = 0;
    stack[top++] = start;
    while (top > 0) {
      const pc = stack[--top]!;
      if (set.has(pc)) continue;
      set.add(pc);
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
          const holds = kind === AT_START ? before < 0 : kind === AT_END ? after < 0 : kind === AT_WORD_BOUNDARY ? boundary : !boundary;
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

export function testPattern(pattern: Pattern, text: string): boolean {
  return runPattern(pattern, text).matched;
}
