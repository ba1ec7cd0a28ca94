// The first code the built CLI runs (dist/dotagent.mjs; scripts/build.mjs puts the file together):
// it compiles the hot half (src/cli/main.ts and what it imports) from V8's code cache when there
// is one for this build and command, and runs it.
//
// Why: compiling the hot half is most of what `status` or a hook costs above a bare `node`
// (parsing ~490 kB at every start, then each function on the way). With a blob V8 made on an
// earlier run (src/store/code-cache.ts: where it lives and why that is safe), neither is done
// again. A run without a blob compiles as before and saves one when it ends.
//
// Where the halves are: after this code, each in a block comment the build appended to the file
// (`/*` + a marker + the text + `*/`), which V8 skips several times faster than it scans a string
// literal of the same size (~10 M instructions fewer at every start for the ~800 kB). This code
// reads its own file and takes them out. The build writes each `*/` of the hot half as `*`, the
// \x01 character, `/` (the text holds no \x01 of its own: the build checks), and the loader drops
// the \x01 again. A line-end conversion of the file (a checkout with autocrlf) changes nothing the
// code means: raw line ends in JavaScript sit between tokens or in template literals, which V8
// reads as \n either way.
//
// The hot half is a script, not a module: the build turns its `import.meta.url` and its dynamic
// `import()`s into the parameters below (a script compiled by node:vm cannot import by itself
// without an experimental flag), and it runs in strict mode as the module did.
//
// Two entries run this loader (SPEC §13 "Start-up"). The build makes it a function expression
// between two markers (`/*\x01L*/` … `/*\x01E*/`) in dotagent.mjs, which calls it at once with its
// require, its URL and its import(). dotagent.cjs, the small CommonJS entry beside it (src/cli/
// boot-cjs.ts: the hooks run it, since Node starts a CommonJS main without building its ES-module
// loader, ~14 M instructions), reads dotagent.mjs, takes this function out and calls it with the
// same URL and the file's bytes. Either way the hot half sees dotagent.mjs as its file, so both
// share one code cache blob per command.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { codeCacheFile, readCodeCache, writeCodeCache } from "../store/code-cache.js";

declare const __DOTAGENT_HOT_KEY__: string;
/** "latin1" when the file is ASCII (a minified build; the build checks), else "utf8". */
declare const __DOTAGENT_TEXT__: "latin1" | "utf8";
// What the entry hands in (scripts/build.mjs makes this file the body of a function of these):
/**
 * The hot half's require: built-ins are all it requires. dotagent.mjs hands in
 * process.getBuiltinModule (node:module's createRequire only for any other id: loading node:module
 * at every start costs ~4 M instructions), dotagent.cjs its own require.
 */
declare const __dotagent_require: NodeJS.Require;
/** dotagent.mjs's file URL, whichever entry started. */
declare const __dotagent_url: string;
/** The entry's own import(): a function compiled by node:vm or eval has none. */
declare const __dotagent_import: (specifier: string) => Promise<unknown>;
/** dotagent.mjs's bytes when the entry read them already (dotagent.cjs did), else undefined. */
declare const __dotagent_file: Buffer | undefined;

type HotHalf = (
  require: NodeJS.Require,
  filename: string,
  url: string,
  dynamicImport: (specifier: string) => Promise<unknown>,
  cold: () => string,
) => void;

/** Where the text of the block comment that starts with `marker` lies in `file` (the build put it there), or null. */
function commentAt(file: Buffer, marker: string): [start: number, end: number] | null {
  const start = file.indexOf(`/*${marker}`);
  const end = start < 0 ? -1 : file.indexOf("*/", start + 2 + marker.length);
  return end < 0 ? null : [start + 2 + marker.length, end];
}

/**
 * That text, without the \x01 the build put inside each of its comment ends (see above). The
 * \x01 bytes are taken out within `file` itself, so the text is made once, as one string: joining
 * pieces would have V8 flatten them into a second copy of the ~500 kB (issue 41).
 */
function textAt(file: Buffer, [start, end]: [number, number]): string {
  let to = file.indexOf(1, start);
  if (to < 0 || to >= end) return file.toString(__DOTAGENT_TEXT__, start, end);
  for (let from = to + 1; ;) {
    const next = file.indexOf(1, from);
    const stop = next < 0 || next >= end ? end : next;
    file.copyWithin(to, from, stop);
    to += stop - from;
    if (stop === end) break;
    from = stop + 1;
  }
  return file.toString(__DOTAGENT_TEXT__, start, to);
}

const url = __dotagent_url;
const filename = fileURLToPath(url);
const own = __dotagent_file ?? readFileSync(filename);
const hotAt = commentAt(own, "\x01H");
const coldAt = commentAt(own, "\x01C");
if (hotAt === null || coldAt === null) {
  process.stderr.write(`dotagent: ${filename} is cut short or edited (a half of it is missing); reinstall dotagent\n`);
  process.exitCode = 1;
} else {
  const hot = textAt(own, hotAt);
  // The cold half's bytes are copied out (its text is made only by a command that runs it), so the
  // file's ~730 kB need not stay: kept, they count toward V8's limits, and a large command then runs
  // a full garbage collection it would not have (`task complete` at 10,000 tasks).
  const coldBytes = Buffer.from(own.subarray(coldAt[0], coldAt[1]));
  const cacheFile = codeCacheFile(__DOTAGENT_HOT_KEY__, process.argv.slice(2));
  // Memory a start touches costs as its instructions do (a page fault each 4 kB; issue 41), so the
  // blob is read into the file's bytes, which both halves are out of now; V8 reads it only while it
  // compiles. A larger blob gets a buffer of its own.
  const cachedData = cacheFile === null ? undefined : readCodeCache(cacheFile, own);
  const script = new Script(hot, { filename, ...(cachedData === undefined ? {} : { cachedData }) });
  if (cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true))
    process.once("exit", () => writeCodeCache(cacheFile, script.createCachedData(), __DOTAGENT_HOT_KEY__));
  (script.runInThisContext() as HotHalf)(__dotagent_require, filename, url, __dotagent_import, () =>
    textAt(coldBytes, [0, coldBytes.length]),
  );
}
