import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StateSnapshot } from "../core/snapshot.js";
import {
  currentHost,
  currentOwner,
  hasEnded,
  isPidAlive,
  isProcessRunning,
  judgeRunningTasks,
  longLivedParent,
  processStartTime,
} from "./process-facts.js";
import { spawnZombie } from "./zombie.test-support.js";

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

  it.runIf(linux)(
    "isProcessRunning: this process with its start time runs; another start time (a reused pid), a reaped pid and a zombie do not",
    async () => {
      expect(isProcessRunning(process.pid, processStartTime(process.pid))).toBe(true);
      expect(isProcessRunning(process.pid, "1")).toBe(false);
      expect(isProcessRunning(process.pid, null)).toBe(false); // with /proc, a pid without its start time may be anyone's
      expect(isProcessRunning(spawnSync("true").pid!, null)).toBe(false);
      const { parent, pid: zombie } = await spawnZombie(30);
      try {
        const deadline = Date.now() + 10_000;
        const start = processStartTime(zombie);
        while (isPidAlive(zombie) && isProcessRunning(zombie, start) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        expect(isPidAlive(zombie)).toBe(true); // kill(pid, 0) still finds it
        expect(processStartTime(zombie)).toBe(start);
        expect(isProcessRunning(zombie, start)).toBe(false);
      } finally {
        parent.kill();
      }
    },
  );

  it.runIf(linux)(
    "hasEnded: a process killed a moment ago has ended, though kill(pid, 0) still finds it (a restart right after kill -9 must not wait for it)",
    async () => {
      let caughtAlive = 0;
      for (let i = 0; i < 6; i++) {
        // Holding 200 MB makes its teardown slow enough to catch it before it is a zombie.
        const child = spawn(
          process.execPath,
          [
            "-e",
            "const a=[];for(let i=0;i<25;i++)a.push(Buffer.alloc(8e6,1));console.log('ready');setInterval(()=>{},1000)",
          ],
          { stdio: ["ignore", "pipe", "ignore"] },
        );
        await new Promise((resolve) => child.stdout.once("data", resolve));
        const start = processStartTime(child.pid!);
        expect(hasEnded(child.pid!)).toBe(false);
        expect(isProcessRunning(child.pid!, start)).toBe(true);
        process.kill(child.pid!, "SIGKILL");
        if (isPidAlive(child.pid!)) caughtAlive++;
        expect(hasEnded(child.pid!) || !isPidAlive(child.pid!)).toBe(true);
        expect(isProcessRunning(child.pid!, start)).toBe(false);
        await new Promise((resolve) => child.once("exit", resolve));
      }
      expect(caughtAlive).toBeGreaterThan(0); // kill(pid, 0) did find them: the case hasEnded is for
    },
  );

  it.runIf(linux)(
    "judgeRunningTasks: a task whose owner is a zombie is gone, one owned by this process is live",
    async () => {
      const { parent, pid: zombie } = await spawnZombie(30);
      try {
        const start = processStartTime(zombie);
        const deadline = Date.now() + 10_000;
        while (isProcessRunning(zombie, start) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const owner = (pid: number) => ({
          session: null,
          pid,
          pid_start: processStartTime(pid),
          host: currentHost(),
          at: NOW.toISOString(),
        });
        const snapshot = {
          phase: { kind: "missing" },
          execution: {
            kind: "ok",
            value: {
              tasks: [
                { id: "t1", status: "running", owner: owner(zombie) },
                { id: "t2", status: "running", owner: owner(process.pid) },
              ],
            },
          },
        } as unknown as StateSnapshot;
        const verdicts = judgeRunningTasks(snapshot, NOW);
        expect(verdicts.get("t1")).toBe("gone");
        expect(verdicts.get("t2")).toBe("live");
      } finally {
        parent.kill();
      }
    },
  );

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

  it.each([[""], ["abc"], ["1"], ["0"], ["-3"]])(
    "CLAUDE_PID=%j is ignored: the nearest long-lived parent owns the task",
    (value) => {
      expect(currentOwner(NOW, undefined, { CLAUDE_PID: value })).toMatchObject({
        pid: longLivedParent(),
        session: null,
      });
    },
  );

  it("an explicit pid wins over the environment", () => {
    expect(currentOwner(NOW, 4242, { CLAUDE_PID: String(process.pid) }).pid).toBe(4242);
  });
});
