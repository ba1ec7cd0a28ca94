// "35 minutes ago", "in 2 hours": how long ago a moment was, in the words `status`, `resume` and
// the SessionStart briefing print (`last_activity_ago`, a checkpoint's age). The very words of
// date-fns's `formatDistanceStrict(at, now, { addSuffix: true })` in English, which this replaces
// on the start-up path: date-fns's en-US locale (its parsers and formats with it) took longer to
// load on every `status` than these few lines take to run. time-ago.test.ts holds the two equal
// on random moments, in time zones with daylight saving.

const MS_PER_MINUTE = 60_000;
const MINUTES_PER_DAY = 1_440;
const MINUTES_PER_MONTH = 43_200;
const MINUTES_PER_YEAR = 525_600;

/** How long before `now` the moment `at` was ("in …" when it is after `now`); a RangeError for an invalid date. */
export function timeAgo(at: Date, now: Date): string {
  const diff = at.getTime() - now.getTime();
  if (Number.isNaN(diff)) throw new RangeError("Invalid time value");
  const words = distance(diff > 0 ? now : at, diff > 0 ? at : now);
  return diff > 0 ? `in ${words}` : `${words} ago`;
}

/** From `earlier` to `later` in the largest unit it fills, rounded: seconds, minutes, hours, days, months, years. */
function distance(earlier: Date, later: Date): string {
  const ms = later.getTime() - earlier.getTime();
  const minutes = ms / MS_PER_MINUTE;
  if (minutes < 1) return count(Math.round(ms / 1000), "second");
  if (minutes < 60) return count(Math.round(minutes), "minute");
  if (minutes < MINUTES_PER_DAY) return count(Math.round(minutes / 60), "hour");
  // Days, months and years are the calendar's: a daylight saving change in between is taken out.
  const calendarMinutes = (ms - (zoneOffsetMs(later) - zoneOffsetMs(earlier))) / MS_PER_MINUTE;
  if (calendarMinutes < MINUTES_PER_MONTH) return count(Math.round(calendarMinutes / MINUTES_PER_DAY), "day");
  if (calendarMinutes < MINUTES_PER_YEAR) {
    const months = Math.round(calendarMinutes / MINUTES_PER_MONTH);
    return months === 12 ? count(1, "year") : count(months, "month");
  }
  return count(Math.round(calendarMinutes / MINUTES_PER_YEAR), "year");
}

const count = (n: number, unit: string) => (n === 1 ? `1 ${unit}` : `${n} ${unit}s`);

/** The local time zone's offset from UTC at `date`, in ms (as date-fns counts it: local wall time read as UTC). */
function zoneOffsetMs(date: Date): number {
  const wall = new Date(
    Date.UTC(
      date.getFullYear(),
      date.getMonth(),
      date.getDate(),
      date.getHours(),
      date.getMinutes(),
      date.getSeconds(),
      date.getMilliseconds(),
    ),
  );
  // Date.UTC reads years 0–99 as 1900–1999.
  wall.setUTCFullYear(date.getFullYear());
  return date.getTime() - wall.getTime();
}
