// Loads the cold half of the CLI (cold.ts). In the built file it is set by the build
// (__DOTAGENT_COLD__): the cold bundle brotli-compressed, then base64 (a quarter of its size, so
// the one file stays small enough to ship once per install), inflated and run only when a
// command asks for it; from source (tests) it is a plain import.
//
// The built cold half is a script like the hot half (src/cli/boot.ts): a function of the hot
// half's require, file, URL and import(), and of the modules the two halves share, which it
// takes from the hot half (cold-shared.ts) instead of holding a copy of its own
// (scripts/build-cold-sharing.mjs), so one instance of each runs.
import { fileURLToPath } from "node:url";
import { DotagentError, EXIT } from "../core/errors.js";

/** The cold half's packed text, taken out of the file when first asked (src/cli/boot.ts). */
declare const __DOTAGENT_COLD__: (() => string) | undefined;

export type Cold = typeof import("./cold.js");

type ColdHalf = (
  require: NodeJS.Require,
  filename: string,
  url: string,
  dynamicImport: (specifier: string) => Promise<unknown>,
  shared: readonly object[],
) => Cold;

let cold: Promise<Cold> | undefined;

async function runPacked(packed: string): Promise<Cold> {
  const { coldShared } = await import("./cold-shared.js");
  const url = import.meta.url;
  const filename = fileURLToPath(url);
  let script;
  try {
    const code = process.getBuiltinModule("node:zlib").brotliDecompressSync(Buffer.from(packed, "base64")).toString();
    script = new (process.getBuiltinModule("node:vm").Script)(code, { filename });
  } catch {
    // The file's bytes, not dotagent's code: a helper cut short or edited after the build wrote it.
    throw new DotagentError(
      "helper_damaged",
      `${filename} is cut short or edited (its cold half does not unpack); reinstall dotagent`,
      EXIT.refused,
    );
  }
  const half = script.runInThisContext() as ColdHalf;
  const require = process.getBuiltinModule("node:module").createRequire(url);
  return half(require, filename, url, (specifier) => import(specifier), coldShared());
}

export function loadCold(): Promise<Cold> {
  cold ??= typeof __DOTAGENT_COLD__ === "function" ? runPacked(__DOTAGENT_COLD__()) : import("./cold.js");
  return cold;
}
