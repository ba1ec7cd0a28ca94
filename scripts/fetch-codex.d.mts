// Types for fetch-codex.mjs (plain JavaScript so it runs without a build step). The tests call it in
// their own process: a Node start fewer per test file than running the script (issue 41).
/** The version the tests fetch when DOTAGENT_CODEX_VERSION is unset. */
export const DEFAULT_CODEX_VERSION: string;
/** The path of a working `codex` binary, installed into the cache when needed (the first time a slow npm install). */
export function fetchCodex(options?: { version?: string; cacheDir?: string }): string;
