import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { currentHost, currentOwner, isPidAlive, longLivedParent, processStartTime } from "./process-facts.js";

const NOW = new Date("2026-11-20T12:00:00Z");
const linux = process.platform === "linux";

describe("process facts", () => {
  it("a live pid is alive; a reaped one is not", () => {
    expect(isPidAlive(process.pid)).toBe(true);
    expect(isPidAlive(spawnSync("true").pid)).toBe(false);
  });

  it.runIf(linux)("the start time is a stable number for a live process and null for a dead one", () => {
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(processStartTime(process.pid));
    expect(processStartTime(spawnSync("true").pid)).toBeNull();
  });

  it.runIf(linux)("a command name with spaces and parentheses does not shift the fields", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dotagent-comm-"));
    const odd = join(dir, "we (i) rd) x");
    copyFileSync("/bin/sleep", odd);
    spawnSync("chmod", ["+x", odd]);
    const child = spawn(odd, ["30"], { stdio: "ignore" });
    try {
      // After "spawn" the process runs the odd command (exec done), however long that took.
      await new Promise((r) => child.once("spawn", r));
      const start = processStartTime(child.pid!);
      expect(start).toMatch(/^\d+$/);
      // Started after this test process, so its start tick is not smaller.
      expect(Number(start)).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)));
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the owner: CLAUDE_PID and the session from the environment", () => {
    const owner = currentOwner(NOW, undefined, { CLAUDE_PID: String(process.pid), CLAUDE_CODE_SESSION_ID: "s-1" });
    expect(owner).toMatchObject({ session: "s-1", pid: process.pid, host: currentHost(), at: NOW.toISOString() });
    expect(owner.pid_start).toBe(processStartTime(process.pid));
  });

  it.each([[""], ["abc"], ["1"], ["0"], ["-3"]])("CLAUDE_PID=%j is ignored: the nearest long-lived parent owns the task", (value) => {
    expect(currentOwner(NOW, undefined, { CLAUDE_PID: value })).toMatchObject({ pid: longLivedParent(), session: null });
  });

  it("an explicit pid wins over the environment", () => {
    expect(currentOwner(NOW, 4242, { CLAUDE_PID: String(process.pid) }).pid).toBe(4242);
  });
});
