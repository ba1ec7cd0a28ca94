// Loads the cold half of the CLI (cold.ts). In the built file it is set by the build
// (__DOTAGENT_COLD__): the cold bundle brotli-compressed, then base64 (a quarter of its size, so
// the one file stays small enough to ship once per install), inflated and imported as a data: URL
// only when a command asks for it; from source (tests) it is a plain import.
declare const __DOTAGENT_COLD__: string | undefined;

export type Cold = typeof import("./cold.js");

let cold: Promise<Cold> | undefined;

async function importPacked(packed: string): Promise<Cold> {
  const { brotliDecompressSync } = await import("node:zlib");
  const code = brotliDecompressSync(Buffer.from(packed, "base64")).toString("base64");
  return (await import(`data:text/javascript;base64,${code}`)) as Cold;
}

export function loadCold(): Promise<Cold> {
  cold ??= typeof __DOTAGENT_COLD__ === "string" ? importPacked(__DOTAGENT_COLD__) : import("./cold.js");
  return cold;
}
