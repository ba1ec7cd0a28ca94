// Types for bench-fixtures.mjs (plain JavaScript so the benchmark runs without a build step).
export type FixtureShape = "mixed" | "chain" | "wide" | "chain+wide";

export interface Fixture {
  root: string;
  tasks: number;
  mix: { complete: number; running: number; pending: number };
  /** The first running task, whose output is already on disk (for `task complete`). */
  runningWithOutput: string;
  /** The first pending task whose dependencies are all complete (for `task start`), if any. */
  ready: string | undefined;
  events: number;
}

export function taskId(i: number): string;
export function taskMix(n: number, share?: number): Fixture["mix"];
export function buildFixture(
  root: string,
  n: number,
  now?: Date,
  options?: { shape?: FixtureShape; complete?: number },
): Fixture;
/** memory/state/.last-write.json naming the state files as they are now (their sha256 and stamps), written after their ctimes. */
export function writeLastWrite(stateDir: string): void;
