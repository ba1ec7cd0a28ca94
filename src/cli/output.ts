// Output for both readers: with --json one JSON object on stdout and nothing else there, on one
// line (every byte reaches the model as tokens; indentation was a third of them); for people
// short plain lines, colour only on a terminal and never with NO_COLOR.

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

export function colorsFor(stream: NodeJS.WriteStream): Colors {
  const on = stream.isTTY === true && !("NO_COLOR" in process.env && process.env.NO_COLOR !== "") && process.env.TERM !== "dumb";
  return { bold: wrap(1, 22, on), dim: wrap(2, 22, on), green: wrap(32, 39, on), yellow: wrap(33, 39, on), red: wrap(31, 39, on), cyan: wrap(36, 39, on) };
}

export function createOutput(json: boolean): Output {
  const color = colorsFor(process.stdout);
  return {
    json,
    color,
    result(value, lines) {
      if (json) process.stdout.write(`${JSON.stringify(value)}\n`);
      else {
        const text = lines().join("\n");
        if (text !== "") process.stdout.write(`${text}\n`);
      }
    },
    note(line) {
      process.stderr.write(`${line}\n`);
    },
  };
}

export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}
