// Loads the cold half of the CLI (cold.ts). In the built file it is a base64 string set by the
// build (__DOTAGENT_COLD__) and imported as a data: URL; from source (tests) it is a plain import.
declare const __DOTAGENT_COLD__: string | undefined;

export type Cold = typeof import("./cold.js");

let cold: Promise<Cold> | undefined;

export function loadCold(): Promise<Cold> {
  cold ??= typeof __DOTAGENT_COLD__ === "string" ? (import(`data:text/javascript;base64,${__DOTAGENT_COLD__}`) as Promise<Cold>) : import("./cold.js");
  return cold;
}
