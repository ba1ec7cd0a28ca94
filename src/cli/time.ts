// The one way plain output shows a time: `2026-11-20 10:30 UTC` (to the minute, always UTC, as
// dotagent writes times). --json keeps the ISO 8601 text of the files.

/** 2026-11-20 10:30 UTC: short, unambiguous, for people; text that is not a time comes back as is. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === "") return "?";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
