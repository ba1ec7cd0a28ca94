import { expect, it } from "vitest";
import { nearest } from "./suggest.js";

const OPTIONS = ["dir", "json", "help", "version", "debug", "dry-run", "request", "yes", "stale-after", "max-parallel"];

it.each([
  ["jsn", "json"],
  ["josn", "json"],
  ["JSON", "json"],
  ["dryrun", "dry-run"],
  ["dry_run", "dry-run"],
  ["stale-afer", "stale-after"],
  ["max-paralel", "max-parallel"],
  ["requests", "request"],
  ["verbose", null],
  ["x", null],
  ["force", null],
] as const)("%s → %s", (typed, expected) => expect(nearest(typed, OPTIONS)).toBe(expected));

it("commands too", () => {
  expect(nearest("stauts", ["status", "resume", "init"])).toBe("status");
  expect(nearest("deploy", ["status", "resume", "init"])).toBeNull();
});
