// Types of langgraph-torture.mjs (plain JS so scripts/langgraph-torture.mjs runs it without a build step).
export interface TortureResult {
  figures: Record<string, number>;
  violations: string[];
  /** Kills by the call they preceded and what it was for: "before renameSync (put)": 3. */
  landed: Record<string, number>;
  /** How many disk changes a writer's run makes (kill points are drawn from 1 to this). */
  span: number;
}
export const THREAD: string;
export const SHARED: string;
export function rng(seed: number): { next(): number; int(lo: number, hi: number): number };
export function killTorture(options: {
  saverPath: string;
  dir: string;
  kills: number;
  steps: number;
  bytes: number;
  seed: number;
}): Promise<TortureResult>;
export function crowdTorture(options: {
  saverPath: string;
  dir: string;
  processes: number;
  rounds: number;
  steps: number;
  kills: number;
  bytes: number;
  seed: number;
}): Promise<TortureResult>;
