import { usageError } from "../../core/errors.js";
import { readEvents } from "../../store/events.js";
import { assertStatePaths } from "../../store/state-paths.js";
import { stringOption, type Command } from "../context.js";
import { formatTime } from "../time.js";
import { escapeControls } from "../../core/words.js";
import { outputWidth, table } from "../table.js";

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
      const rows = events.map(({ seq, at, type, ...rest }) =>
        [
          String(seq),
          formatTime(at),
          type,
          Object.entries(rest)
            .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
            .join(" "),
        ].map(escapeControls),
      );
      return table(["SEQ", "TIME", "EVENT", "DETAILS"], rows, outputWidth());
    });
    return 0;
  },
};
