// What a person watching `dotagent run` sees, on stderr (stdout holds only the result: one JSON
// object with --json). Lines of what happened stay in the scrollback: a header per phase, one line
// per agent and task with the time it took, the task bar after each task. While agents work, one
// live line at the bottom (a terminal only) shows who works, for how long, and their last move;
// it is redrawn in place and erased before any other line, so the scrollback never holds it.
// Without a terminal (a log, CI) there is no live line: a line when work starts instead.
// Colour only on a terminal and never with NO_COLOR (the caller's Colors decide).
import { formatDuration } from "../core/words.js";
import type { Colors } from "../cli/output.js";

export type Mark = "done" | "failed" | "info" | "warning";

export interface Activity {
  /** What the work does now (an agent's last tool call), for the live line. */
  update(detail: string): void;
  /** The work is over: the live line forgets it. Returns how long it took (ms). */
  end(): number;
}

export interface Progress {
  /** A line of its own, in bold (the run's first line). */
  heading(text: string): void;
  /** A phase header: printed when the run first works in that phase (again after another phase). */
  phase(name: string): void;
  /** A line of what happened, kept in the scrollback; `elapsedMs` is shown after it. */
  line(text: string, options?: { mark?: Mark; elapsedMs?: number; after?: string }): void;
  /** Lines shown as they are, also with -q: what a person is asked about (a gate's substance). */
  show(lines: readonly string[]): void;
  /** Work under way (an agent session): on the live line, with its elapsed time, until end(). */
  begin(label: string): Activity;
  /** Erases the live line and stops its clock (before a question; at the end). */
  end(): void;
}

/** The CLI's colours (plain functions without a terminal or under NO_COLOR). */
export type ProgressColors = Colors;

export interface ProgressOptions {
  readonly quiet?: boolean;
  readonly colors?: ProgressColors;
  /** Milliseconds from some fixed point (default: performance.now()). */
  readonly clock?: () => number;
  /** The live line's redraw interval (default 1 s; 0: only on changes). */
  readonly tickMs?: number;
}

const plain: ProgressColors = {
  bold: (s) => s,
  dim: (s) => s,
  green: (s) => s,
  yellow: (s) => s,
  red: (s) => s,
  cyan: (s) => s,
};
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Where the elapsed time of a line starts, when the line is shorter. */
const TEXT_COLUMN = 62;

/** `[####--------] 1/3 tasks`: a bar over the whole plan. */
export function taskBar(done: number, total: number, width = 12): string {
  const filled = total <= 0 ? width : Math.min(width, Math.round((done / total) * width));
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} ${total === 1 ? "task" : "tasks"}`;
}

export function createProgress(stream: NodeJS.WriteStream, options: ProgressOptions = {}): Progress {
  const quiet = options.quiet === true;
  const c = options.colors ?? plain;
  const clock = options.clock ?? (() => performance.now());
  // A live line needs a terminal that understands "erase the line".
  const live = stream.isTTY === true && process.env.TERM !== "dumb";
  const tickMs = options.tickMs ?? 1000;
  const marks: Record<Mark, string> = {
    done: c.green("✓"),
    failed: c.red("✗"),
    info: c.dim("·"),
    warning: c.yellow("!"),
  };
  const working: Array<{ label: string; detail: string; started: number }> = [];
  let shown = false;
  let frame = 0;
  let ticker: NodeJS.Timeout | undefined;
  let lastPhase: string | undefined;

  const write = (text: string) => {
    try {
      stream.write(text);
    } catch {
      // a closed stderr never stops the run
    }
  };
  const erase = () => {
    if (shown) write("\r\u001b[2K");
    shown = false;
  };
  // A terminal that reports no size (0 columns: a pty nobody sized) is taken as 80 wide.
  const width = () => Math.max(20, (stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80) - 1);
  const cut = (text: string) => (text.length > width() ? `${text.slice(0, width() - 1)}…` : text);
  const draw = () => {
    if (!live || quiet) return;
    erase();
    if (working.length === 0) return;
    const now = clock();
    const oldest = working.reduce((a, b) => (a.started <= b.started ? a : b));
    const spin = SPINNER[frame++ % SPINNER.length]!;
    const text =
      working.length === 1
        ? `  ${spin} ${oldest.label} · ${formatDuration(now - oldest.started)}${oldest.detail ? ` · ${oldest.detail}` : ""}`
        : `  ${spin} ${working.length} agents at work · ${formatDuration(now - oldest.started)} · ${working.map((w) => `${w.label}${w.detail ? `: ${w.detail}` : ""}`).join("; ")}`;
    write(c.cyan(cut(text)));
    shown = true;
  };
  const keepTicking = () => {
    if (!live || quiet || tickMs <= 0) return;
    if (working.length > 0 && ticker === undefined) {
      ticker = setInterval(draw, tickMs);
      ticker.unref();
    } else if (working.length === 0 && ticker !== undefined) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
  const permanent = (text: string) => {
    erase();
    write(`${text}\n`);
    draw();
  };

  return {
    heading(text) {
      if (!quiet) permanent(c.bold(text));
    },
    phase(name) {
      if (quiet || name === lastPhase) return;
      lastPhase = name;
      permanent(c.bold(name));
    },
    line(text, o = {}) {
      if (quiet) return;
      const time =
        o.elapsedMs === undefined
          ? ""
          : `${" ".repeat(Math.max(1, TEXT_COLUMN - text.length))}${c.dim(formatDuration(o.elapsedMs).padStart(6))}`;
      permanent(`  ${marks[o.mark ?? "info"]} ${text}${time}${o.after ? `  ${o.after}` : ""}`);
    },
    show(lines) {
      erase();
      for (const line of lines) write(`${line}\n`);
      draw();
    },
    begin(label) {
      const entry = { label, detail: "", started: clock() };
      working.push(entry);
      if (!live && !quiet) write(`  … ${label}\n`);
      keepTicking();
      draw();
      return {
        update(detail) {
          if (entry.detail === detail) return;
          entry.detail = detail;
          draw();
        },
        end() {
          const at = working.indexOf(entry);
          if (at >= 0) working.splice(at, 1);
          keepTicking();
          draw();
          return clock() - entry.started;
        },
      };
    },
    end() {
      working.length = 0;
      keepTicking();
      erase();
    },
  };
}
