// The interactive Claude Code client in a real pseudo-terminal, as a person runs it: tmux (its own
// server socket per terminal, so tests never meet) holds the client; the test types into it
// (send-keys), reads the screen (capture-pane), and kills the client's whole process group with
// -9 as a crash would. Requests go to the scripted model like the print-mode journeys'.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { claudeEnv, type ClaudeClient } from "./client.js";

export interface Terminal {
  /** Types text (literally) and presses Enter. */
  type(text: string): void;
  press(key: string): void;
  screen(): string;
  /** Everything the pane shows and has scrolled past (the scrollback, as a person scrolls it). */
  history(): string;
  /** Resolves with the screen once `pattern` shows, or rejects after `timeoutMs` with the screen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The client's pid (the pane's process), or undefined when it has exited. */
  pid(): number | undefined;
  /** kill -9 of the client's process group: the client, its hooks and its tool commands. */
  kill9(): void;
  /** Starts the client again in the same pane (e.g. `claude -r` after a crash). */
  restart(args: string[]): void;
  close(): void;
}

/**
 * Watches the screen (every 250 ms) until `pattern` shows on it, whitespace folded, or `timeoutMs`
 * pass: for what a client shows only for a while (Copilot and Codex redraw their conversation, so
 * the pane's history does not keep it). `seen()`: the first screen that matched, else the last one.
 */
export function watchScreen(
  terminal: Pick<Terminal, "screen">,
  pattern: RegExp,
  timeoutMs = 60_000,
): { seen(): string; stop(): void } {
  const until = Date.now() + timeoutMs;
  let seen = "";
  const timer = setInterval(() => {
    seen = terminal.screen();
    if (pattern.test(seen.replace(/\s+/g, " ")) || Date.now() > until) clearInterval(timer);
  }, 250);
  return { seen: () => seen, stop: () => clearInterval(timer) };
}

/** Whether tmux is there to drive (the test skips the interactive journey otherwise, saying so). */
export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function startTerminal(
  client: ClaudeClient & { env?: Record<string, string> },
  cwd: string,
  args: string[] = [],
): Terminal {
  return startClientTerminal(client.binary, { ...claudeEnv(client), ...client.env }, cwd, args);
}

/** Any client binary in a terminal, with exactly this environment (a color terminal's TERM added). */
export function startClientTerminal(
  binary: string,
  clientEnv: NodeJS.ProcessEnv,
  cwd: string,
  args: string[] = [],
): Terminal {
  const socket = `dotagent-${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmux = (...a: string[]) => spawnSync("tmux", ["-L", socket, ...a], { encoding: "utf8" });
  const env: Record<string, string | undefined> = { ...clientEnv, TERM: "xterm-256color" };
  delete env.NO_COLOR;
  const commandLine = (a: string[]) =>
    `exec env -i ${Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${quote(String(v))}`)
      .join(" ")} ${quote(binary)} ${a.map(quote).join(" ")}`;
  const started = tmux("new-session", "-d", "-s", "main", "-x", "160", "-y", "50", "-c", cwd, commandLine(args));
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  // Keep the pane (and its last screen) when the client exits or is killed.
  tmux("set-option", "-t", "main", "remain-on-exit", "on");
  const screen = () => tmux("capture-pane", "-p", "-t", "main", "-S", "-200").stdout;
  const pid = (): number | undefined => {
    const out = tmux("list-panes", "-t", "main", "-F", "#{pane_pid} #{pane_dead}").stdout.trim().split(" ");
    return out[1] === "1" || !out[0] ? undefined : Number(out[0]);
  };
  return {
    type(text) {
      tmux("send-keys", "-t", "main", "-l", text);
      // The input box takes a moment to settle a pasted line (and a slash command's menu).
      spawnSync("sleep", ["0.4"]);
      tmux("send-keys", "-t", "main", "Enter");
    },
    press(key) {
      tmux("send-keys", "-t", "main", key);
    },
    screen,
    history: () => tmux("capture-pane", "-p", "-J", "-t", "main", "-S", "-").stdout,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = screen();
        if (pattern.test(shown)) return shown;
        if (Date.now() > deadline)
          throw new Error(`the terminal never showed ${pattern} within ${timeoutMs} ms; it shows:\n${shown}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    pid,
    kill9() {
      const p = pid();
      if (p === undefined) return;
      try {
        process.kill(-p, "SIGKILL");
      } catch {
        try {
          process.kill(p, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
    restart(nextArgs) {
      tmux("respawn-pane", "-k", "-t", "main", "-c", cwd, commandLine(nextArgs));
    },
    close() {
      const p = pid();
      if (p !== undefined) {
        try {
          process.kill(-p, "SIGKILL");
        } catch {
          // gone
        }
      }
      tmux("kill-server");
    },
  };
}
