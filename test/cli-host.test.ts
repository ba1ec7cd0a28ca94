// The CLI host (test/support/cli-host.ts) must be indistinguishable from a spawned CLI for the
// calls it takes, or every CLI test that runs through it proves less than it says.
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, dotagent, installedProject, removeTemps, tempProject } from "./support/cli.js";
import { hostRun } from "./support/cli-host.js";

afterAll(removeTemps);

const env = (extra: Record<string, string> = {}) =>
  ({ ...process.env, NO_COLOR: "1", ...extra }) as Record<string, string>;

const mask = (text: string) =>
  text
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>")
    .replace(/\d+ (milli)?seconds? ago/g, "<ago>")
    .replace(/"duration_ms":\d+/g, '"duration_ms":<n>');

describe("the CLI host", () => {
  it("gives the same exit code, stdout and stderr as a spawned CLI, call for call", () => {
    const p = tempProject();
    const calls: string[][] = [
      ["--version"],
      ["--help"],
      ["status", "--json"],
      ["status"],
      ["nonsense"],
      ["status", "--jsn"],
      ["init", "--request", "add login", "--json"],
      ["status", "--json"],
      ["phase", "approve", "REQUIREMENTS", "--json"],
      ["validate", "--json"],
      ["task", "add", "--json"],
      ["log", "--json"],
      ["show"],
      ["schema", "execution"], // written through process.stdout, not std-write
      ["schema", "workflow"],
    ];
    // The same calls in two projects, one spawned and one hosted: the same answers, the
    // projects' own paths, the clock and the hosted calls' cold half aside.
    const twin = tempProject();
    for (const args of calls) {
      const spawned = dotagent(twin, args, { spawn: true });
      const hosted = dotagent(p, args);
      expect({
        args,
        code: hosted.code,
        stdout: mask(hosted.stdout).replaceAll(p, "<p>"),
        stderr: mask(hosted.stderr).replaceAll(p, "<p>"),
      }).toEqual({
        args,
        code: spawned.code,
        stdout: mask(spawned.stdout).replaceAll(twin, "<p>"),
        stderr: mask(spawned.stderr).replaceAll(twin, "<p>"),
      });
    }
  });

  it("runs each call with exactly its environment and folder, and fresh modules", () => {
    const p = tempProject();
    // A variable the test process has is gone when the call's environment leaves it out.
    const only = { PATH: process.env.PATH ?? "", NO_COLOR: "1", DOTAGENT_STATE_HOME: join(p, "state-home") };
    const a = hostRun(CLI, p, ["status", "--json"], only);
    expect(a.code).toBe(0);
    const b = hostRun(CLI, p, ["status", "--json"], { ...only, DOTAGENT_DEBUG: "1" });
    expect(b.code).toBe(0);
    // --dir is relative to the call's folder, not the host's.
    mkdirSync(join(p, "sub"));
    const c = hostRun(CLI, p, ["init", "--request", "x", "--dir", "sub", "--json"], env());
    expect(c.code, c.stdout + c.stderr).toBe(0);
    expect(hostRun(CLI, join(p, "sub"), ["status", "--json"], env()).stdout).toContain('"workflow_id"');
  });

  it("hands a hook its JSON input on stdin, as a pipe, like a spawned helper", () => {
    const twins = [installedProject(), installedProject()];
    const hook = (i: number, event: string, input: Record<string, unknown> | string) => {
      const { p, helper } = twins[i]!;
      const r = dotagent(p, ["hook", event], {
        input: typeof input === "string" ? input : JSON.stringify({ session_id: "s-1", cwd: p, ...input }),
        env: { CLAUDE_PID: String(process.pid), CLAUDE_CODE_SESSION_ID: "s-1", CLAUDE_PROJECT_DIR: p },
        script: helper,
        spawn: i === 0,
      });
      return { code: r.code, stdout: mask(r.stdout).replaceAll(p, "<p>"), stderr: mask(r.stderr).replaceAll(p, "<p>") };
    };
    for (const p of twins) expect(dotagent(p.p, ["init", "--request", "add login", "--json"]).code).toBe(0);
    const inputs: [string, Record<string, unknown> | string][] = [
      ["session-start", { hook_event_name: "SessionStart", source: "startup" }],
      [
        "pre-tool-use",
        {
          hook_event_name: "PreToolUse",
          tool_name: "Write",
          tool_input: { file_path: "memory/state/phase.json", content: "{}" },
        },
      ],
      ["pre-tool-use", { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf memory" } }],
      ["pre-tool-use", ""], // no input at all
      ["pre-tool-use", "{not json"],
    ];
    for (const [event, input] of inputs) expect(hook(1, event, input)).toEqual(hook(0, event, input));
  });

  it("keeps going after a `once` call: the Immediate its command runner leaves finds its work done", () => {
    const p = tempProject();
    expect(hostRun(CLI, p, ["init", "--request", "t"], env()).code).toBe(0);
    // Each command prints its parent, the process that ran the call. A host retired after each
    // `once` would give three; a host replaced after its RESTART_AFTER calls may fall between two.
    const hosts = ["a", "b", "c"].map((op) => {
      const r = hostRun(CLI, p, ["once", op, "--", "sh", "-c", "echo $PPID"], env());
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    });
    expect(new Set(hosts).size, hosts.join("")).toBeLessThan(3);
  });

  it("keeps stdout and stderr apart, and a call's failure is its exit code, not the host's", () => {
    const p = tempProject();
    const refused = dotagent(p, ["phase", "approve", "NOPE"]);
    expect(refused.code).toBe(dotagent(p, ["phase", "approve", "NOPE"], { spawn: true }).code);
    expect(refused.code).toBeGreaterThan(0);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^dotagent: /);
    // The host lives on: the next call runs.
    expect(dotagent(p, ["--version"]).code).toBe(0);
  });

  it("runs the file as it is now: one rewritten between calls, even to the same size, is read again", () => {
    const p = tempProject();
    const cli = join(p, "cli.mjs");
    const say = (word: string) => `process.stdout.write(${JSON.stringify(word)});\nprocess.exit(0);\n`;
    writeFileSync(cli, say("first"));
    expect(hostRun(cli, p, [], env()).stdout).toBe("first");
    expect(hostRun(cli, p, [], env()).stdout).toBe("first");
    writeFileSync(cli, say("other"));
    expect(hostRun(cli, p, [], env()).stdout).toBe("other");
  });
});
