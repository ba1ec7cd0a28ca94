// Types for cpu-by-process.mjs (plain JavaScript so it runs without a build step).
export interface ProcessKind {
  processes: number;
  cpu_s: number;
}
export interface BySamples {
  /** CPU seconds the samples saw busy, every core. */
  busy_cpu_s: number;
  /** The share of the samples that found a core idle. */
  idle_share: number;
  /** The busy share of each 20 s from the first sample, in order. */
  busy_by_window: number[];
  /** CPU seconds by process (thread) name, most first. */
  by_name: Array<{ name: string; cpu_s: number }>;
  /** Node processes by kind: long-lived, ran a program, a fork before its exec. */
  node: { long_lived: ProcessKind; ran: ProcessKind; fork_only: ProcessKind };
}
/** `perf script -F comm,pid,time` output sampled at `freq` a second, sorted by process. */
export function bySamples(text: string, freq: number): BySamples;
