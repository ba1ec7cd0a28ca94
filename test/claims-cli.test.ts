// `dotagent claims` (SPEC §23): the built CLI lists a workflow's claims from the git remote, with
// the --json fields SPEC names, a hostile ref listed as invalid (exit 0), a failing remote as one
// line (exit 1). The claims are made with src/ops/claims.ts against a bare remote in a temp folder.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimTask, finishClaim, releaseClaim } from "../src/ops/claims.js";
import { dotagent } from "./support/cli.js";

let work: string;
let clone: string;
let other: string;
let remote: string;
const T0 = Date.parse("2026-11-30T07:00:00.000Z");
const a = { id: "aaaaaaaaaaaaaaaa", host: "laptop", pid: 11 };
const b = { id: "bbbbbbbbbbbbbbbb", host: "ci-runner-3", pid: 22 };

function sh(cwd: string, args: string[], input?: string): string {
  const run = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
    cwd,
    encoding: "utf8",
    ...(input !== undefined ? { input } : {}),
  });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "dotagent-claims-cli-"));
  remote = join(work, "remote.git");
  sh(work, ["init", "-q", "--bare", remote]);
  [clone, other] = ["one", "two"].map((name) => {
    const dir = join(work, name);
    sh(work, ["clone", "-q", remote, dir]);
    writeFileSync(join(dir, "README.md"), "# app\n");
    sh(dir, ["add", "README.md"]);
    sh(dir, ["commit", "-qm", "initial"]);
    return dir;
  }) as [string, string];
  const ctx = (worker: typeof a, ms: number) => ({
    remote: { cwd: clone, remote: "origin" },
    workflowId: "wf-login",
    worker,
    now: () => new Date(T0 + ms),
  });
  claimTask(ctx(a, 0), "t1");
  claimTask(ctx(b, 1000), "t2");
  finishClaim(ctx(b, 2000), "t2");
  claimTask(ctx(b, 3000), "t3");
  releaseClaim(ctx(b, 4000), "t3");
  // A ref that is not a claim dotagent wrote, put there by someone with push rights.
  const blob = sh(remote, ["hash-object", "-w", "--stdin"], '{"format":1,"state":"held"}');
  const commit = sh(remote, ["commit-tree", sh(remote, ["mktree"], `100644 blob ${blob}\tclaim.json\n`), "-m", "x"]);
  sh(remote, ["update-ref", "refs/dotagent/claims/wf-login/t9", commit]);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("dotagent claims", () => {
  it("--json: every claim with the fields SPEC §23 names, by task id; the hostile ref listed as invalid", () => {
    const run = dotagent(other, ["claims", "wf-login", "--json"]);
    expect(run.code).toBe(0);
    expect(Object.keys(run.json)).toEqual(["remote", "workflow_id", "claims", "invalid"]);
    expect(run.json.remote).toBe("origin");
    expect(run.json.claims.map((c: any) => [c.task_id, c.state, c.worker.host, c.attempt])).toEqual([
      ["t1", "held", "laptop", 1],
      ["t2", "done", "ci-runner-3", 1],
      ["t3", "released", "ci-runner-3", 1],
    ]);
    expect(Object.keys(run.json.claims[0]).sort()).toEqual(
      ["attempt", "claimed_at", "commit", "expires_at", "lapsed", "renewed_at", "state", "task_id", "worker"].sort(),
    );
    // The clock here is long past 2026-11-30T07:05Z + skew: t1's lease has lapsed.
    expect(run.json.claims[0]).toMatchObject({ lapsed: true, expires_at: new Date(T0 + 300_000).toISOString() });
    expect(run.json.claims[1]).toMatchObject({ lapsed: false, expires_at: null });
    expect(run.json.invalid).toEqual([
      {
        task_id: "t9",
        commit: expect.stringMatching(/^[0-9a-f]{40}$/),
        problem: expect.stringContaining("claim.json: "),
      },
    ]);
  });

  it("plain: a summary line, a table, a line per invalid ref", () => {
    const run = dotagent(other, ["claims", "wf-login"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toBe("wf-login on origin: 3 claims, 1 held, 1 released, 1 done");
    expect(lines[1]).toMatch(/^TASK +STATE +HOST +PID +WORKER +SINCE +UNTIL +ATTEMPT$/);
    expect(lines[2]).toMatch(/^t1 +held \(lapsed\) +laptop +11 +aaaaaaaaaaaaaaaa /);
    expect(lines.at(-1)).toMatch(/^t9: not a claim dotagent wrote \(claim\.json: .*\); left alone$/);
  });

  it("a remote that fails: remote_failed, one line, exit 1; no workflow named or here: exit 2", () => {
    const failing = dotagent(other, ["claims", "wf-login", "--remote", "nowhere", "--json"]);
    expect(failing.code).toBe(1);
    expect(failing.json.error.code).toBe("remote_failed");
    expect(failing.json.error.message).not.toContain("\n");
    // No remote of that name in this clone, or no git repository at all: said as what is wrong here.
    expect(failing.json.error.message).toBe(
      "this clone has no git remote named nowhere (`git remote -v` lists its remotes; --remote NAME picks another); no claim was changed",
    );
    const bare = mkdtempSync(join(tmpdir(), "dotagent-claims-nogit-"));
    try {
      const outside = dotagent(bare, ["claims", "wf-login", "--json"]);
      expect(outside.json.error).toMatchObject({ code: "remote_failed", exit_code: 1 });
      expect(outside.json.error.message).toBe(
        `${bare} is not in a git repository: claims live on the git remote of a clone of the project`,
      );
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
    expect(dotagent(other, ["claims"]).code).toBe(2);
  });

  it("tasks and status --claims: the plan with who holds which task on the remote; without it nothing is asked of the remote", () => {
    expect(dotagent(clone, ["init", "--request", "add login", "--workflow-id", "wf-login"]).code).toBe(0);
    for (const id of ["t1", "t2", "t3"]) expect(dotagent(clone, ["task", "add", id]).code).toBe(0);
    const run = dotagent(clone, ["tasks", "--claims", "--json"]);
    expect(run.code).toBe(0);
    // The list as `tasks --json` gives it, and `claims`: the object `dotagent claims --json` prints.
    const offline = dotagent(clone, ["tasks", "--json"]).json;
    expect(run.json).toEqual({ ...offline, claims: dotagent(clone, ["claims", "--json"]).json });
    expect(run.json.claims.claims.map((c: any) => [c.task_id, c.state, c.worker.host])).toEqual([
      ["t1", "held", "laptop"],
      ["t2", "done", "ci-runner-3"],
      ["t3", "released", "ci-runner-3"],
    ]);
    const plain = dotagent(clone, ["tasks", "--claims"]).stdout;
    expect(plain).toContain("wf-login on origin: 3 claims, 1 held, 1 released, 1 done");
    expect(plain).toMatch(/^t1 +held \(lapsed\) +laptop +11 +aaaaaaaaaaaaaaaa /m);
    // Offline as before: a remote that would fail is never asked without --claims.
    expect(dotagent(clone, ["tasks", "--json"]).code).toBe(0);
    expect(dotagent(clone, ["tasks", "--claims", "--remote", "nowhere", "--json"]).json.error.code).toBe(
      "remote_failed",
    );
    expect(dotagent(clone, ["tasks", "--remote", "origin"]).code).toBe(2);
    // One task's view and the runs' list have no claims to show: asked for, a usage error, never ignored.
    for (const args of [
      ["tasks", "show", "t1", "--claims"],
      ["tasks", "show", "t1", "--remote", "origin"],
      ["tasks", "--workflow-runs", "--claims"],
    ]) {
      const refused = dotagent(clone, [...args, "--json"]);
      expect(refused.code).toBe(2);
      expect(refused.json.error.message).toMatch(/takes no .*--claims or --remote/);
    }
    expect(dotagent(clone, ["run", "--remote", "origin", "--json"]).json.error).toMatchObject({
      code: "usage",
      message: "--remote names the git remote of --claims: give both, or neither",
    });
    expect(dotagent(clone, ["run", "--claims", "--remote", "a b"]).code).toBe(2);
    // status --claims: the same object beside status's own fields.
    const status = dotagent(clone, ["status", "--claims", "--json"]);
    expect(Object.keys(status.json)).toEqual([...Object.keys(dotagent(clone, ["status", "--json"]).json), "claims"]);
    expect(status.json.claims).toEqual(run.json.claims);
    expect(dotagent(clone, ["status", "--claims"]).stdout).toContain("wf-login on origin: 3 claims");
  });
});
