import { describe, expect, it } from "vitest";
import { TASK_LEASE_MS, describeOwner, judgeOwner, type Owner, type OwnerVerdict } from "./ownership.js";

const NOW = new Date("2026-11-20T12:00:00Z");
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();
const owner = (overrides: Partial<Owner> = {}): Owner => ({
  session: "s-1",
  pid: 4242,
  pid_start: "1000",
  host: "dev",
  at: minutesAgo(5),
  ...overrides,
});
const alive = (start: string | null = "1000") => ({ alive: true, start });
const dead = { alive: false, start: null };
const leaseMinutes = TASK_LEASE_MS / 60_000;

// One line per case: owner, its process as seen here, this host → verdict, words of the reason.
const rows: Array<
  [string, Owner | null | undefined, { alive: boolean; start: string | null }, string, OwnerVerdict, string]
> = [
  ["same host, process alive, same start time", owner(), alive(), "dev", "live", "is alive"],
  ["same host, process alive, start time unknown here (not Linux)", owner(), alive(null), "dev", "live", "is alive"],
  [
    "same host, process alive, no start time recorded",
    owner({ pid_start: null }),
    alive("9"),
    "dev",
    "live",
    "is alive",
  ],
  ["same host, process dead", owner(), dead, "dev", "gone", "4242 is gone"],
  ["same host, pid reused by a later process", owner(), alive("2000"), "dev", "gone", "another process"],
  ["another host, within the lease", owner({ host: "laptop" }), dead, "dev", "unknown", "within the lease"],
  [
    "another host, just inside the lease",
    owner({ host: "laptop", at: minutesAgo(leaseMinutes) }),
    dead,
    "dev",
    "unknown",
    "within the lease",
  ],
  [
    "another host, past the lease",
    owner({ host: "laptop", at: minutesAgo(leaseMinutes + 1) }),
    alive(),
    "dev",
    "gone",
    "the lease",
  ],
  [
    "another host, unreadable start time",
    owner({ host: "laptop", at: "not a time" }),
    alive(),
    "dev",
    "gone",
    "the lease",
  ],
  ["no owner (a file written by an older version)", undefined, alive(), "dev", "gone", "no owner"],
  ["owner null", null, alive(), "dev", "gone", "no owner"],
];

describe("judgeOwner", () => {
  it.each(rows)("%s", (_name, who, process, host, verdict, why) => {
    const judged = judgeOwner(who, { host, now: NOW, process });
    expect(judged.verdict).toBe(verdict);
    expect(judged.why).toContain(why);
  });

  it("a shorter lease can be passed in", () => {
    expect(
      judgeOwner(owner({ host: "laptop", at: minutesAgo(11) }), {
        host: "dev",
        now: NOW,
        process: dead,
        leaseMs: 10 * 60_000,
      }).verdict,
    ).toBe("gone");
  });

  it("describes an owner for a refusal: session, pid, host, since", () => {
    expect(describeOwner(owner())).toBe(`session s-1 (pid 4242 on host dev, since ${minutesAgo(5)})`);
    expect(describeOwner(owner({ session: null }))).toContain("a process outside Claude Code");
  });
});
