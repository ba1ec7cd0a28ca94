// Issue 21, `dotagent run` cases 4 and 9: a kill -9 of `dotagent run` leaves its Claude Code child
// running (the next run must say so and start no second agent on that job); a Claude Code that is
// not logged in is one line before anything is written. Run as a user would:
// the built CLI, with a stand-in Agent SDK package in the project (it spawns its "Claude Code"
// through the SDK's spawnClaudeCodeProcess option, as the real SDK does).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, removeTemps, standInSdkProject } from "./support/cli.js";
import { startApiStandIn, type ApiStandIn } from "./support/api-stand-in.js";

afterEach(removeTemps);
// What `dotagent run` checks before it starts: an API address that answers.
let api: ApiStandIn;
beforeAll(async () => {
  api = await startApiStandIn();
  process.env.ANTHROPIC_BASE_URL = api.url;
});
afterAll(() => {
  api.stop();
  delete process.env.ANTHROPIC_BASE_URL;
});

const FAKE_SDK = `
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
export function query({ prompt, options }) {
  const messages = (async function* () {
    appendFileSync(process.env.FAKE_SDK_LOG, JSON.stringify({ resume: options.resume ?? null }) + "\\n");
    const child = options.spawnClaudeCodeProcess({ command: process.execPath, args: ["-e", "setTimeout(() => {}, 120000)"], env: process.env, cwd: options.cwd });
    yield { type: "system", subtype: "init", session_id: "fake-1" };
    if (process.env.FAKE_SDK_MODE === "hang") await new Promise(() => {});
    const output = /^Output file: (\\S+)$/m.exec(prompt)[1];
    mkdirSync(dirname(join(options.cwd, output)), { recursive: true });
    writeFileSync(join(options.cwd, output), JSON.stringify({ summary: "sign in" }));
    child.kill();
    yield { type: "result", subtype: "success", session_id: "fake-1", result: "wrote " + output };
  })();
  // What Claude Code answers to accountInfo() with no key and no login.
  if (process.env.FAKE_SDK_MODE === "logged-out") return Object.assign(messages, { accountInfo: async () => ({ tokenSource: "none", apiProvider: "firstParty" }), close() {} });
  return messages;
}
`;

/** A project whose node_modules holds the stand-in SDK, and the CLI copied into it (so it resolves that SDK). */
function project(): { root: string; cli: string; log: string } {
  const { root, cli } = standInSdkProject(FAKE_SDK);
  return { root, cli, log: join(root, "sdk-calls.log") };
}

const calls = (log: string) =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { resume: string | null })
    : [];

/** The agent's process once its session is under way (the process and the session id both recorded). */
function recorded(root: string): { pid: number } | undefined {
  const dir = join(root, "memory/runs/wf-add-login");
  if (!existsSync(join(dir, "pm.REQUIREMENTS.s1.checkpoint.json"))) return undefined;
  const data = (
    JSON.parse(readFileSync(join(dir, "pm.REQUIREMENTS.s1.checkpoint.json"), "utf8")) as {
      data: { process?: { pid: number }; session_id?: string | null };
    }
  ).data;
  return data.session_id ? data.process : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("issue 21, case 4: kill -9 of dotagent run, its Claude Code child still running", () => {
  it("the next run exits 4 (agent_running) naming the pid and starts no second agent; once the child is gone, the run resumes that session", async () => {
    const { root, cli, log } = project();
    const env = { ...process.env, NO_COLOR: "1", FAKE_SDK_LOG: log };
    const args = [cli, "run", "add login", "--agents", join(REPO, "agents"), "--json"];
    const runner = spawn(process.execPath, args, {
      cwd: root,
      env: { ...env, FAKE_SDK_MODE: "hang" },
      stdio: "ignore",
    });
    let child: { pid: number } | undefined;
    for (let i = 0; i < 400 && child === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      child = recorded(root);
    }
    expect(child, "the runner recorded its agent's process").toBeDefined();
    runner.kill("SIGKILL");
    await new Promise((resolve) => runner.once("exit", resolve));
    try {
      expect(alive(child!.pid)).toBe(true);
      const again = spawnSync(process.execPath, args, {
        cwd: root,
        env: { ...env, FAKE_SDK_MODE: "hang" },
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(again.status).toBe(4);
      const error = JSON.parse(again.stdout).error;
      expect(error.code).toBe("agent_running");
      expect(error.message).toContain(`pm.REQUIREMENTS.s1 (Claude Code pid ${child!.pid}`);
      expect(error.message).toContain(`kill ${child!.pid}`);
      expect(calls(log)).toHaveLength(1); // no second agent on the job
    } finally {
      process.kill(child!.pid, "SIGKILL");
    }
    for (let i = 0; i < 200 && alive(child!.pid); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // The child gone, the run continues the same session and stops at the requirements gate (no terminal).
    const resumed = spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", timeout: 30_000 });
    expect(resumed.status, resumed.stdout + resumed.stderr).toBe(5);
    expect(calls(log)).toEqual([{ resume: null }, { resume: "fake-1" }]);
    expect(readdirSync(join(root, "memory/reports"))).toContain("demand.json");
  }, 600_000);
});

describe("issue 21, case 9: dotagent run without credentials", () => {
  it("says so in one line (auth_failed, exit 1) before anything is written; no agent, no workflow", () => {
    const { root, cli, log } = project();
    const r = spawnSync(
      process.execPath,
      [cli, "run", "add login", "--agents", join(REPO, "agents"), "--approve", "auto"],
      {
        cwd: root,
        env: { ...process.env, NO_COLOR: "1", FAKE_SDK_LOG: log, FAKE_SDK_MODE: "logged-out" },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^dotagent: Claude Code is not logged in: no API key \(ANTHROPIC_API_KEY\) and no login/),
    ]);
    expect(existsSync(join(root, "memory"))).toBe(false);
    expect(calls(log)).toEqual([]);
  });
});
