// A question on a terminal cancelled by the person (Ctrl-C or Esc; the terminal is in raw mode, so
// no SIGINT) is no answer (issue 42): never drawn as taken (`✖ question › Yes`), nothing changed,
// one line, exit 130; run again, the same question.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, dotagent, removeTemps, tempProject, treeBytes } from "./support/cli.js";
import { screenLines } from "../scripts/terminal-screen.mjs";

afterEach(() => removeTemps());
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** The CLI on a terminal; `keys` typed once `when` is on the screen. */
function onTerminal(
  cwd: string,
  args: string[],
  when: RegExp,
  keys: string,
): Promise<{ code: number | null; raw: string }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qefc", `stty cols 100 rows 40; ${quoted}`, "/dev/null"], {
    cwd,
    env: { ...process.env, TERM: "xterm", NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  let typed = false;
  child.stdout.on("data", (d: Buffer) => {
    raw += d.toString();
    if (!typed && when.test(raw)) {
      typed = true;
      child.stdin.write(keys);
    }
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  return new Promise((done) => child.on("close", (code) => (clearTimeout(timer), done({ code, raw }))));
}

describe.skipIf(!hasScript)("a question cancelled on a terminal", () => {
  it.each([
    ["Ctrl-C", "\u0003"],
    ["Esc", "\u001b"],
  ])(
    "%s at init's archive question: erased, nothing changed, one line, exit 130; asked again next time",
    async (_name, keys) => {
      const p = tempProject();
      expect(dotagent(p, ["init", "--request", "add login"]).code).toBe(0);
      const before = treeBytes(join(p, "memory"));
      const screen = await onTerminal(p, ["init", "--request", "add logout"], /\? .*›/, keys);
      expect(screen.code, screen.raw).toBe(130);
      const lines = screenLines(screen.raw).filter((l: string) => l !== "");
      expect(lines.join("\n")).not.toMatch(/✖|›/);
      expect(lines.at(-1)).toBe(
        "dotagent: interrupted at the question: nothing changed; run the command again to be asked again",
      );
      expect(treeBytes(join(p, "memory"))).toEqual(before);
      expect(screen.raw.slice(screen.raw.lastIndexOf("\u001b[?25l"))).toContain("\u001b[?25h"); // the cursor shown again
      const again = await onTerminal(p, ["init", "--request", "add logout"], /\? .*›/, "n\r");
      expect(again.raw).toMatch(/\?.*›/);
      expect(again.code).not.toBe(130);
    },
  );
});
