// Types for fetch-copilot.mjs (plain JavaScript so it runs without a build step). The tests call it in
// their own process: a Node start fewer per test file than running the script (issue 41).
/** The version the tests fetch when DOTAGENT_COPILOT_VERSION is unset. */
export const DEFAULT_COPILOT_VERSION: string;
/** The path of a working `copilot` binary, installed into the cache when needed (the first time a slow npm install). */
export function fetchCopilot(options?: { version?: string; cacheDir?: string }): string;
