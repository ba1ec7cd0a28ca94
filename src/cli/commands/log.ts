import { usageError } from "../../core/errors.js";
import { readEvents } from "../../store/events.js";
import { assertStatePaths } from "../../store/state-paths.js";
import { stringOption, type Command } from "../context.js";
import { formatTime } from "../time.js";
import { escapeControls } from "../../core/words.js";
import { outputWidth, table } from "../table.js";
import { kindOfEvent, type RunEvent } from "../../core/run-story.js";

export const command: Command = {
  summary: "show the event log (memory/state/events.jsonl)",
  positionals: "none",
  usage: "dotagent log [-n N] [--json]",
  options: { n: { type: "string", short: "n" } },
  examples: ["dotagent log            the last 20 events", "dotagent log -n 100 --json"],
  run(context) {
    const text = stringOption(context, "n") ?? "20";
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw usageError(`-n takes a whole number, not "${text}"`);
    assertStatePaths(context.paths);
    const all = readEvents(context.paths.eventsFile);
    const events = n === 0 ? [] : all.slice(-n);
    context.out.result({ events, total: all.length }, () => {
      if (events.length === 0) return ["No events yet."];
      // A committed events.jsonl is anyone's text: its control characters are shown, never sent to the terminal.
      const offset = all.length - events.length;
      const rows = events.map((event, i) => {
        const { seq, at, type, ...rest } = event;
        // `resume` logs a `resumed` at every step it plans (the runner once per step, /develop at each
        // session's start): one that repaired nothing is the plan of the next step, not an
        // interruption, and reads so (`planned`, `next=spawn_agent`); --json keeps the event as logged.
        const planned =
          type === "resumed" && kindOfEvent(event as RunEvent, all[offset + i - 1] as RunEvent | undefined) === null;
        const details = planned ? Object.entries(rest).filter(([k]) => k === "next") : Object.entries(rest);
        return [
          String(seq),
          formatTime(at),
          planned ? "planned" : type,
          details.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" "),
        ].map(escapeControls);
      });
      return table(["SEQ", "TIME", "EVENT", "DETAILS"], rows, outputWidth());
    });
    return 0;
  },
};
