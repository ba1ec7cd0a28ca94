// scripts/cpu-by-process.mjs's sorting of perf's samples (the figures docs/evidence.md gives for
// the test suite's CPU by process): names with spaces, idle samples, and the three kinds of Node
// process by lifetime and cost.
import { describe, expect, it } from "vitest";
import { bySamples } from "../scripts/cpu-by-process.mjs";

/** `perf script -F comm,pid,time` lines: comm right-aligned, then pid and time. */
const sample = (comm: string, pid: number, time: number) => `${comm.padStart(16)} ${pid}  ${time.toFixed(6)}: `;

describe("cpu-by-process: perf's samples by process", () => {
  it("counts names with spaces, leaves idle out of the busy time and sorts Node processes by kind", () => {
    const freq = 100;
    const lines = [
      // idle: 4 samples
      ...[1, 2, 3, 4].map((t) => sample("swapper", 0, t)),
      // a test worker: lived 10 s, 3 samples
      sample("node", 10, 0),
      sample("node", 10, 5),
      sample("node", 10, 10),
      // a CLI call: 0.05 s of CPU (5 samples) within a second
      ...[0, 0.1, 0.2, 0.3, 0.4].map((t) => sample("node", 20, 1 + t)),
      // a fork before its exec: one sample
      sample("node", 30, 2),
      // a name with a space, and git
      sample("npm exec vitest", 40, 3),
      sample("git", 50, 3),
      sample("git", 51, 3.5),
      "not a sample line",
    ];
    const r = bySamples(lines.join("\n"), freq);
    expect(r.busy_cpu_s).toBe(0.12);
    expect(r.idle_share).toBe(0.25);
    // Every sample falls within the first 20 s: one window.
    expect(r.busy_by_window).toEqual([0.75]);
    expect(r.by_name).toEqual([
      { name: "node", cpu_s: 0.09 },
      { name: "git", cpu_s: 0.02 },
      { name: "npm exec vitest", cpu_s: 0.01 },
    ]);
    expect(r.node).toEqual({
      long_lived: { processes: 1, cpu_s: 0.03 },
      ran: { processes: 1, cpu_s: 0.05 },
      fork_only: { processes: 1, cpu_s: 0.01 },
    });
  });

  it("gives the busy share of each 20 s window, an empty one as 0", () => {
    const lines = [sample("node", 1, 0), sample("swapper", 0, 1), sample("git", 2, 45), sample("git", 3, 46)];
    expect(bySamples(lines.join("\n"), 100).busy_by_window).toEqual([0.5, 0, 1]);
  });
});
