// Types for fetch-claude.mjs (plain JavaScript so it runs without a build step). The tests call it in
// their own process: a Node start fewer per test file than running the script (issue 41).
/** The version the tests fetch when DOTAGENT_CLAUDE_VERSION is unset. */
export const DEFAULT_CLAUDE_VERSION: string;
/** The path of a working `claude` binary, installed into the cache when needed (the first time a slow npm install). */
export function fetchClaude(options?: { version?: string; cacheDir?: string }): string;
