// A hook's input (readHookStdin) however Claude Code or a person's shell hands it over: a pipe, a
// file, or a device. A device (/dev/null, a terminal) is no input, as an empty pipe is; the hook
// asks the descriptor, not process.stdin (whose first use builds a stream the hook never needed).
import { closeSync, openSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, dotagent, removeTemps, tempProject } from "./support/cli.js";

afterAll(removeTemps);

/** The hook with `stdin` as its standard input (a descriptor), its stdout. */
function hookWith(cwd: string, stdin: number): string {
  const run = spawnSync(process.execPath, [CLI, "hook", "session-start"], {
    cwd,
    stdio: [stdin, "pipe", "pipe"],
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  expect(run.status, run.stderr).toBe(0);
  return sameMoment(run.stdout);
}

/** The briefing's "(2 seconds ago)" depends on when it ran. */
const sameMoment = (text: string) => text.replace(/\(\d+ seconds? ago\)/g, "(a moment ago)");
const piped = (cwd: string, input: string) => sameMoment(dotagent(cwd, ["hook", "session-start"], { input }).stdout);

describe("the SessionStart hook's input", () => {
  it("from /dev/null is no input (as an empty pipe); from a file, the same JSON as from a pipe", () => {
    const root = tempProject();
    expect(dotagent(root, ["init", "--request", "add login", "--json"]).code).toBe(0);
    const input = JSON.stringify({ source: "resume", cwd: root });

    const devNull = openSync("/dev/null", "r");
    try {
      expect(hookWith(root, devNull)).toBe(piped(root, ""));
    } finally {
      closeSync(devNull);
    }

    const file = join(tempProject(), "input.json");
    writeFileSync(file, input);
    const fd = openSync(file, "r");
    try {
      const fromFile = hookWith(root, fd);
      expect(fromFile).toBe(piped(root, input));
      expect(JSON.parse(fromFile).hookSpecificOutput.additionalContext).toContain("(this session was resumed)");
    } finally {
      closeSync(fd);
    }
  });
});
