// Output for both readers: with --json one JSON object on stdout and nothing else there, on one
// line (every byte reaches the model as tokens; indentation was a third of them); for people
// short plain lines, colour only on a terminal and never with NO_COLOR. Writes go through
// std-write.ts, so a command that prints one JSON line never builds Node's stdout stream.
import { YES_OR_NO } from "../core/authority.js";
import { EXIT } from "../core/errors.js";
import { writeStd } from "./std-write.js";

export interface Output {
  readonly json: boolean;
  /** Prints the command's result: the object with --json, else the lines. */
  result(value: unknown, lines: () => string[]): void;
  /** A line for people on stderr (never pollutes --json stdout). */
  note(line: string): void;
  readonly color: Colors;
}

export interface Colors {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
}

function wrap(open: number, close: number, on: boolean): (s: string) => string {
  return on ? (s) => `\u001b[${open}m${s}\u001b[${close}m` : (s) => s;
}

/** NO_COLOR set to anything but the empty string, or TERM=dumb: no colour anywhere (no-color.org). */
export function colorWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return !("NO_COLOR" in env && env.NO_COLOR !== "") && env.TERM !== "dumb";
}

export function colorsFor(stream: NodeJS.WriteStream): Colors {
  const on = stream.isTTY === true && colorWanted();
  return {
    bold: wrap(1, 22, on),
    dim: wrap(2, 22, on),
    green: wrap(32, 39, on),
    yellow: wrap(33, 39, on),
    red: wrap(31, 39, on),
    cyan: wrap(36, 39, on),
  };
}

/** Colours for stdout, decided on first use (asking whether stdout is a terminal builds its stream). */
function lazyColors(): Colors {
  let colors: Colors | undefined;
  const get = (): Colors => (colors ??= colorsFor(process.stdout));
  return {
    bold: (s) => get().bold(s),
    dim: (s) => get().dim(s),
    green: (s) => get().green(s),
    yellow: (s) => get().yellow(s),
    red: (s) => get().red(s),
    cyan: (s) => get().cyan(s),
  };
}

/**
 * JSON.stringify's replacer for every --json answer: a decision put to the person carries the
 * words that count as their answer (`answers`), which the model shows with the question (SPEC §10).
 */
export function withAnswers(key: string, value: unknown): unknown {
  if (key !== "decision" || value === null || typeof value !== "object") return value;
  const d = value as Record<string, unknown>;
  return typeof d.question === "string" &&
    typeof d.yes === "string" &&
    typeof d.no === "string" &&
    d.answers === undefined
    ? { ...d, answers: YES_OR_NO }
    : value;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    color: lazyColors(),
    result(value, lines) {
      if (json) writeStd("stdout", `${JSON.stringify(value, withAnswers)}\n`);
      else {
        const text = lines().join("\n");
        if (text !== "") writeStd("stdout", `${text}\n`);
      }
    },
    note(line) {
      writeStd("stderr", `${line}\n`);
    },
  };
}

export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

/**
 * A question put to the person where nobody can answer it here (no terminal): `value` for
 * `--json`, else the question and what yes and no do, in three lines; exit 5.
 */
export function putDecision(
  out: Output,
  value: unknown,
  decision: { question: string; yes: string; no: string },
): number {
  out.result(value, () => [decision.question, `  yes: ${decision.yes}`, `  no:  ${decision.no}`]);
  return EXIT.decide;
}
