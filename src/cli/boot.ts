// The first code the built CLI runs (dist/dotagent.mjs; scripts/build.mjs puts the file together):
// it compiles the hot half (src/cli/main.ts and what it imports, held here as one string) from
// V8's code cache when there is one for this build and command, and runs it.
//
// Why: compiling the hot half is most of what `status` or a hook costs above a bare `node`
// (parsing ~470 kB at every start, then each function on the way). With a blob V8 made on an
// earlier run (src/store/code-cache.ts: where it lives and why that is safe), neither is done
// again. A run without a blob compiles as before and saves one when it ends.
//
// The hot half is a script, not a module: the build turns its `import.meta.url` and its dynamic
// `import()`s into the parameters below (a script compiled by node:vm cannot import by itself
// without an experimental flag), and it runs in strict mode as the module did.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { codeCacheFile, readCodeCache, writeCodeCache } from "../store/code-cache.js";

declare const __DOTAGENT_HOT__: string;
declare const __DOTAGENT_HOT_KEY__: string;
declare const __DOTAGENT_COLD__: string;

type HotHalf = (
  require: NodeJS.Require,
  filename: string,
  url: string,
  dynamicImport: (specifier: string) => Promise<unknown>,
  cold: string,
) => void;

const url = import.meta.url;
const filename = fileURLToPath(url);
const cacheFile = codeCacheFile(__DOTAGENT_HOT_KEY__, process.argv.slice(2));
const cachedData = cacheFile === null ? undefined : readCodeCache(cacheFile);
const script = new Script(__DOTAGENT_HOT__, { filename, ...(cachedData === undefined ? {} : { cachedData }) });
if (cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true))
  process.once("exit", () => writeCodeCache(cacheFile, script.createCachedData(), __DOTAGENT_HOT_KEY__));
(script.runInThisContext() as HotHalf)(
  createRequire(url),
  filename,
  url,
  (specifier) => import(specifier),
  __DOTAGENT_COLD__,
);
