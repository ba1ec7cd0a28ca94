import { formatDistanceStrict } from "date-fns";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { timeAgo } from "./time-ago.js";

const TZ = process.env.TZ;
afterEach(() => {
  if (TZ === undefined) delete process.env.TZ;
  else process.env.TZ = TZ;
});

const NOW = new Date("2026-11-29T12:00:00.000Z");
const ago = (ms: number) => timeAgo(new Date(NOW.getTime() - ms), NOW);
const MIN = 60_000;
const DAY = 1_440 * MIN;
const JULY_OFFSET: Record<string, number> = {
  UTC: 0,
  "Europe/Berlin": -120,
  "America/New_York": 240,
  "Australia/Lord_Howe": -630,
  "Asia/Kolkata": -330,
};

describe("timeAgo: the words status and the briefing print", () => {
  it.each([
    [0, "0 seconds ago"],
    [499, "0 seconds ago"],
    [500, "1 second ago"],
    [59_000, "59 seconds ago"],
    [59_999, "60 seconds ago"],
    [MIN, "1 minute ago"],
    [35 * MIN + 29_999, "35 minutes ago"],
    [59 * MIN + 45_000, "60 minutes ago"],
    [60 * MIN, "1 hour ago"],
    [23 * 60 * MIN + 40 * MIN, "24 hours ago"],
    [DAY, "1 day ago"],
    [29 * DAY, "29 days ago"],
    [30 * DAY, "1 month ago"],
    [350 * DAY, "1 year ago"],
    [365 * DAY, "1 year ago"],
    [-90 * MIN, "in 2 hours"],
    [-1, "in 0 seconds"],
  ])("%i ms before now: %s", (ms, words) => {
    process.env.TZ = "UTC";
    expect(ago(ms)).toBe(words);
  });

  it("an invalid date is a RangeError, as date-fns's", () => {
    expect(() => timeAgo(new Date("not a date"), NOW)).toThrow(RangeError);
    expect(() => formatDistanceStrict(new Date("not a date"), NOW, { addSuffix: true })).toThrow(RangeError);
  });

  // Days, months and years across a daylight saving change, and zones that shift by 30 minutes.
  it.each(["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"])(
    "says what date-fns's formatDistanceStrict says, in %s",
    (zone) => {
      process.env.TZ = zone;
      // The zone is in force (Node reads TZ again when it is set).
      expect(new Date(Date.UTC(2026, 6, 1)).getTimezoneOffset()).toBe(JULY_OFFSET[zone]);
      const moment = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) });
      const near = fc
        .tuple(moment, fc.integer({ min: -400 * DAY, max: 400 * DAY }))
        .map(([a, d]) => [a, a + d] as const);
      // Halfway between two whole days (months, years), give or take the hour a clock change moves:
      // where taking daylight saving out decides the rounding.
      const unit = fc.constantFrom(DAY, 43_200 * MIN, 525_600 * MIN);
      const halfway = fc
        .tuple(
          moment,
          unit,
          fc.integer({ min: 1, max: 28 }),
          fc.integer({ min: -3 * 60 * MIN, max: 3 * 60 * MIN }),
          fc.boolean(),
        )
        .map(([a, u, n, e, later]) => [a, a + (later ? 1 : -1) * (n * u + u / 2 + e)] as const);
      fc.assert(
        fc.property(fc.oneof(fc.tuple(moment, moment), near, halfway), ([at, now]) => {
          expect(timeAgo(new Date(at), new Date(now))).toBe(
            formatDistanceStrict(new Date(at), new Date(now), { addSuffix: true }),
          );
        }),
        { numRuns: 2000 },
      );
    },
  );
});
