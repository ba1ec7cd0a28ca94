// Progress of `dotagent run` on stderr, for the person watching: one line per step, and during a
// task batch a bar (redrawn in place on a terminal, a line per change elsewhere). Never on
// stdout, which holds only the result (one JSON object with --json).
export interface Progress {
  step(line: string): void;
  tasks(done: number, total: number, running: readonly string[]): void;
  end(): void;
}

export function createProgress(stream: NodeJS.WriteStream, quiet = false): Progress {
  const tty = stream.isTTY === true;
  let barShown = false;
  let lastBar = "";
  const clearBar = () => {
    if (barShown && tty) stream.write("\r\u001b[2K");
    barShown = false;
  };
  return {
    step(line) {
      if (quiet) return;
      clearBar();
      stream.write(`dotagent run: ${line}\n`);
    },
    tasks(done, total, running) {
      if (quiet) return;
      const width = 20;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const bar = `tasks [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}${running.length > 0 ? `, running ${running.join(", ")}` : ""}`;
      if (bar === lastBar) return;
      lastBar = bar;
      if (tty) {
        stream.write(`\r\u001b[2Kdotagent run: ${bar}`);
        barShown = true;
      } else stream.write(`dotagent run: ${bar}\n`);
    },
    end() {
      clearBar();
    },
  };
}
