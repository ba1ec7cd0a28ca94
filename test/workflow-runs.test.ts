// Claude Code's Workflow runs as people and agents see them (issue 43; SPEC §10 `tasks
// --workflow-runs`, `status`, `report`), through the built CLI, on a project with fixture runs
// (the real client's journals: test/claude/fixtures/workflow-tool/).
import { afterEach, describe, expect, it } from "vitest";
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, dotagent, expectNoStack, removeTemps, tempProject } from "./support/cli.js";

afterEach(removeTemps);

const FIXTURES = join(REPO, "test/claude/fixtures/workflow-tool");

/** A run in the project's memory as the hooks record it; `client` makes the client's session folder too. */
function addRun(
  root: string,
  runId: string,
  opts: { journal: string; at: string; ended?: unknown; client?: "running" | "ended" },
): void {
  const kept = join(root, "memory/state/workflow-runs", runId);
  mkdirSync(kept, { recursive: true });
  const session = join(root, "client-home", "s-1");
  const journalPath = join(session, "subagents/workflows", runId, "journal.jsonl");
  copyFileSync(join(FIXTURES, opts.journal), join(kept, "journal.jsonl"));
  writeFileSync(
    join(kept, "run.json"),
    JSON.stringify({
      run_id: runId,
      client: "claude",
      session_id: "s-1",
      task_id: "t1",
      workflow_name: "three-agents",
      args: { topic: "probe" },
      script_path: null,
      journal_path: journalPath,
      script_file: null,
      journal_file: `memory/state/workflow-runs/${runId}/journal.jsonl`,
      recorded_at: opts.at,
      ...(opts.ended === undefined ? {} : { ended: opts.ended }),
    }),
  );
  if (opts.client !== undefined) {
    mkdirSync(join(session, "subagents/workflows", runId), { recursive: true });
    copyFileSync(join(FIXTURES, opts.journal), journalPath);
    if (opts.client === "ended") {
      mkdirSync(join(session, "workflows"), { recursive: true });
      writeFileSync(join(session, "workflows", `${runId}.json`), "{}");
    }
  }
}

describe("Claude Code's Workflow runs in status, tasks --workflow-runs and report", () => {
  it("no runs: status shows no block, the list says so, exit 0", () => {
    const p = tempProject();
    expect(dotagent(p, ["status"]).stdout).not.toContain("workflow runs");
    const list = dotagent(p, ["tasks", "--workflow-runs"]);
    expect(list.code).toBe(0);
    expect(list.stdout.trim()).toBe("No Claude Code workflow runs recorded here (memory/state/workflow-runs/).");
    expect(dotagent(p, ["tasks", "--workflow-runs", "--json"]).json).toEqual({ workflow_runs: [] });
  });

  it("a killed run whose session folder is gone is cut off; one whose session still holds it runs; an ended one is done", () => {
    const p = tempProject();
    addRun(p, "wf_cfe69835-f9e", { journal: "journal-killed.jsonl", at: "2026-11-30T01:00:00.000Z" });
    addRun(p, "wf_bbbbbbbb-002", {
      journal: "journal-killed.jsonl",
      at: "2026-11-30T02:00:00.000Z",
      client: "running",
    });
    addRun(p, "wf_cccccccc-003", {
      journal: "journal-complete.jsonl",
      at: "2026-11-30T03:00:00.000Z",
      ended: { status: "completed", at: "2026-11-30T03:01:00.000Z" },
      client: "ended",
    });
    const status = dotagent(p, ["status"]);
    expect(status.code).toBe(0);
    expect(status.stdout.split("\n").slice(-5)).toEqual([
      "Claude Code workflow runs:",
      "  wf_cccccccc-003 three-agents · 3 of 3 agents done · ended: completed",
      "  wf_bbbbbbbb-002 three-agents · 2 of 3 agents done · open, running: gamma",
      "  wf_cfe69835-f9e three-agents · 2 of 3 agents done · open (cut off: resuming re-runs gamma)",
      "",
    ]);
    // status --json is unchanged: the runs are in tasks --workflow-runs --json.
    expect(JSON.stringify(dotagent(p, ["status", "--json"]).json)).not.toContain("wf_");
    const list = dotagent(p, ["tasks", "--workflow-runs", "--json"]);
    expect(list.code).toBe(0);
    const runs = (list.json as { workflow_runs: Record<string, unknown>[] }).workflow_runs;
    expect(runs.map((r) => [r.run_id, r.state, r.rerun_on_resume])).toEqual([
      ["wf_cccccccc-003", "ended:completed", []],
      ["wf_bbbbbbbb-002", "open", ["gamma"]],
      ["wf_cfe69835-f9e", "open", ["gamma"]],
    ]);
    expect(runs[1]).toEqual({
      run_id: "wf_bbbbbbbb-002",
      workflow_name: "three-agents",
      session_id: "s-1",
      state: "open",
      agents: [
        { label: "alpha", phase: "Fan", state: "done", headline: "result alpha" },
        { label: "beta", phase: "Fan", state: "done", headline: "result beta" },
        { label: "gamma", phase: "Join", state: "running", headline: null },
      ],
      rerun_on_resume: ["gamma"],
      recorded_at: "2026-11-30T02:00:00.000Z",
      problem: null,
    });
    const plain = dotagent(p, ["tasks", "--workflow-runs"]).stdout;
    expect(plain).toContain("  lost    gamma [Join]\n");
    expect(plain).toContain("  running gamma [Join]\n");
    // report: a section per run, though there is no workflow of dotagent's own here.
    const report = dotagent(p, ["report", "--json"]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(p, "memory/report.html"), "utf8");
    expect(html).toContain("<h2>Claude Code workflow runs</h2>");
    expect(html.match(/<h3>wf_/g)).toHaveLength(3);
    expect(html).toContain("<td>result alpha</td>");
  });

  it("a broken run is one line, never a crash: run.json a link, not JSON; a journal that is a link", () => {
    const p = tempProject();
    addRun(p, "wf_dddddddd-001", { journal: "journal-killed.jsonl", at: "2026-11-30T01:00:00.000Z" });
    const linked = join(p, "memory/state/workflow-runs/wf_dddddddd-001");
    writeFileSync(join(p, "elsewhere.json"), "{}");
    rmSync(join(linked, "run.json"));
    symlinkSync(join(p, "elsewhere.json"), join(linked, "run.json"));
    addRun(p, "wf_eeeeeeee-002", { journal: "journal-killed.jsonl", at: "2026-11-30T02:00:00.000Z" });
    writeFileSync(join(p, "memory/state/workflow-runs/wf_eeeeeeee-002/run.json"), "{not json");
    mkdirSync(join(p, "memory/state/workflow-runs/not-a-run-id"));
    const list = dotagent(p, ["tasks", "--workflow-runs", "--json"]);
    expect(list.code).toBe(0);
    expectNoStack(list.stderr);
    const runs = (list.json as { workflow_runs: { run_id: string; problem: string | null }[] }).workflow_runs;
    expect(runs.map((r) => r.run_id).sort()).toEqual(["wf_dddddddd-001", "wf_eeeeeeee-002"]);
    expect(runs.find((r) => r.run_id === "wf_dddddddd-001")!.problem).toMatch(/^run\.json is a symbolic link/);
    expect(runs.find((r) => r.run_id === "wf_eeeeeeee-002")!.problem).toBe("run.json is not valid JSON");
    expect(dotagent(p, ["status"]).stdout).toContain("(run.json is not valid JSON)");
  });

  it("tasks --workflow-runs takes no argument, --status, --watch, --claims or --remote", () => {
    const p = tempProject();
    for (const args of [["show", "x"], ["--status", "running"], ["--watch"], ["--claims"], ["--remote", "origin"]]) {
      const r = dotagent(p, ["tasks", "--workflow-runs", ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("tasks --workflow-runs takes no argument, --status, --watch, --claims or --remote");
    }
  });
});
