// Clean-ups the support modules run at the end of every test file (the templates, the owner
// process). A test/ file may share its worker with the files before it (vitest.config.ts, issue
// 41): a support module is then imported once per worker, so an afterAll at its top level would
// run after the first file alone. isolated-env.ts, a setup file (run again for each file), runs
// these in its afterAll instead.
const cleanups: Array<() => void | Promise<void>> = [];

/** `cleanup` runs at the end of each test file from now on. */
export function atFileEnd(cleanup: () => void | Promise<void>): void {
  cleanups.push(cleanup);
}

export async function runFileEnd(): Promise<void> {
  for (const cleanup of cleanups) await cleanup();
}
