// dotagent.cjs, the CommonJS entry the build writes beside each dotagent.mjs (scripts/build.mjs):
// the hooks' command lines and the skills' helper lines run it (SPEC §13 "Start-up"). Node starts
// a CommonJS main without building its ES-module loader, which an .mjs main pays for at every
// start (~20 M instructions of `status`'s ~150 M with what that loader loads). It holds no code of
// dotagent's own: it reads the dotagent.mjs beside it, takes out the loader the build put there
// between two markers (src/cli/boot.ts: a function expression) and calls it as dotagent.mjs does,
// with dotagent.mjs's URL and the bytes already read, so nothing is read twice and both entries
// share one code cache blob per command. `process.argv[1]` stays this file: it is the helper a
// hook names to the model and a line runs again. Any dotagent.mjs with the markers will do, so an
// entry left from another version still runs the helper beside it.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";

const mjs = __filename.replace(/\.cjs$/, ".mjs");
let file: Buffer | undefined;
try {
  file = readFileSync(mjs);
} catch {
  file = undefined;
}
const start = file === undefined ? -1 : file.indexOf("/*\x01L*/");
const end = start < 0 ? -1 : file!.indexOf("/*\x01E*/", start);
if (end < 0) {
  process.stderr.write(
    `dotagent: ${mjs} is missing, cut short or edited (${__filename} runs the dotagent.mjs beside it); reinstall dotagent\n`,
  );
  process.exitCode = 1;
} else {
  const text = file!.toString("utf8", start, end);
  // The loader's place in dotagent.mjs, so a stack trace points into that file.
  const lineOffset = file!.subarray(0, start).toString("latin1").split("\n").length - 1;
  const columnOffset = start - (file!.lastIndexOf("\n", start) + 1);
  (new Script(text, { filename: mjs, lineOffset, columnOffset }).runInThisContext() as Loader)(
    require,
    pathToFileURL(mjs).href,
    (specifier) => import(specifier),
    file,
  );
}

type Loader = (
  require: NodeJS.Require,
  url: string,
  dynamicImport: (specifier: string) => Promise<unknown>,
  file: Buffer | undefined,
) => void;
