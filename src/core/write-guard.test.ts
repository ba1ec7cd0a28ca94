import { describe, expect, it } from "vitest";
import { DEVELOP } from "./flow.js";
import { BUILTIN_WORKFLOWS } from "./workflow-defs.js";
import { resolveWorkflow } from "./resolve-workflow.js";
import {
  judgeBashWrite,
  judgeFileWrite,
  physicalPath,
  reportWriter,
  shellSegments,
  type GuardContext,
  type Writer,
} from "./write-guard.js";

// A file system of links only: /p is the project, /lnk a link to /p/memory, /wt the executor's worktree.
const LINKS: Record<string, string> = { "/lnk": "/p/memory", "/p/sub/up": "/p/memory/state/deep", "/home/me/p": "/p" };
const EXISTING = new Set([
  "/p",
  "/p/memory",
  "/p/memory/state",
  "/p/memory/state/deep",
  "/p/memory/reports",
  "/p/src",
  "/p/sub",
  "/wt",
  "/wt/src",
  "/tmp",
  "/home",
  "/home/me",
]);
const realpath = (path: string): string | undefined => LINKS[path] ?? (EXISTING.has(path) ? path : undefined);
const ctx: GuardContext = { root: "/p", cwd: "/p", realpath, helper: 'node "/h/dotagent.mjs"', flow: DEVELOP };
const main: Writer = { kind: "main" };
const qa: Writer = {
  kind: "agent",
  agent: "qa",
  job: { agent: "qa", phase: "VERIFICATION", output: "memory/reports/verification.json" },
};
const executor: Writer = {
  kind: "agent",
  agent: "executor",
  job: { agent: "executor", phase: "IMPLEMENTATION", output: "memory/reports/tasks/t1.json", task: "t1" },
  worktree: "/wt",
};

describe("physicalPath: as the kernel resolves it", () => {
  it.each([
    ["memory/state/phase.json", "/p", "/p/memory/state/phase.json"],
    ["/lnk/state/x", "/", "/p/memory/state/x"],
    ["../../p/memory/./state/x", "/p/src", "/p/memory/state/x"],
    ["../p/memory/state/x", "/p/src", "/p/p/memory/state/x"],
    // `..` after a link is its target's parent, not the link's folder.
    ["sub/up/../phase.json", "/p", "/p/memory/state/phase.json"],
    ["nothing/../x", "/p", "/p/x"],
    ["/../../p//memory", "/", "/p/memory"],
  ])("%s from %s → %s", (path, cwd, expected) => expect(physicalPath(path, cwd, realpath)).toBe(expected));
});

describe("judgeFileWrite: who writes what", () => {
  const denied = (path: string, writer: Writer, cwd = "/p") => {
    const v = judgeFileWrite(path, writer, { ...ctx, cwd });
    return v.deny ? v.reason : null;
  };
  it.each<[string, string, Writer, RegExp | null]>([
    [
      "state: phase.json, absolute",
      "/p/memory/state/phase.json",
      main,
      /memory\/state\/phase\.json is dotagent's workflow state.*phase approve/,
    ],
    [
      "state: execution.json, relative",
      "memory/state/execution.json",
      main,
      /execution\.json is dotagent's workflow state.*task import/,
    ],
    ["state: events.jsonl", "memory/state/events.jsonl", main, /events\.jsonl is dotagent's/],
    ["state: through `..`", "src/../memory/state/phase.json", main, /is dotagent's workflow state/],
    ["state: through a linked folder", "/lnk/state/phase.json", main, /memory\/state\/phase\.json is dotagent's/],
    ["state: through the project's own link", "/home/me/p/memory/state/phase.json", main, /is dotagent's/],
    ["state: by a dotagent agent", "/p/memory/state/phase.json", qa, /is dotagent's/],
    ["state: by another agent type", "/p/memory/state/phase.json", { kind: "other" }, /is dotagent's/],
    [
      "main: qa's report",
      "memory/reports/verification.json",
      main,
      /verification\.json is not yours to write: it is qa's report: spawn qa/,
    ],
    ["main: pm's report", "memory/reports/demand.json", main, /it is pm's report: spawn pm/],
    [
      "main: a task report",
      "memory/reports/tasks/t1.json",
      main,
      /it is a task's report, by the executor agent: spawn executor for that task/,
    ],
    ["main: dotagent's rework copy", "memory/reports/verification.rework-1.json", main, /dotagent writes it/],
    ["main: a file of no agent", "memory/reports/notes.json", main, /no agent of the develop workflow writes it/],
    [
      "main: final_design.json (dotagent writes it from the person's pick)",
      "memory/reports/final_design.json",
      main,
      /dotagent writes it from the person's pick/,
    ],
    ["main: plan.json", "memory/reports/plan.json", main, null],
    ["main: plan.rework-2.json", "memory/reports/plan.rework-2.json", main, null],
    ["main: outside memory/", "src/app.ts", main, null],
    ["qa: its report", "/p/memory/reports/verification.json", qa, null],
    [
      "qa: another agent's report",
      "memory/reports/demand.json",
      qa,
      /not your report \(it is pm's report: spawn pm\); you are the qa agent and your report is memory\/reports\/verification\.json/,
    ],
    ["qa: final_design.json", "memory/reports/final_design.json", qa, /not your report/],
    [
      "an agent whose job is unknown: its type's report",
      "memory/reports/verification.json",
      { kind: "agent", agent: "qa" },
      null,
    ],
    [
      "an agent whose job is unknown: another's",
      "memory/reports/demand.json",
      { kind: "agent", agent: "qa" },
      /you write only qa's report/,
    ],
    ["another agent type: a report", "memory/reports/verification.json", { kind: "other" }, null],
    ["executor: inside its worktree", "/wt/src/a.ts", executor, null],
    ["executor: its report in the main checkout", "/p/memory/reports/tasks/t1.json", executor, null],
    [
      "executor: the main checkout",
      "/p/src/a.ts",
      executor,
      /works in its own worktree, \/wt: write your changes there \(this file there: \/wt\/src\/a\.ts\)/,
    ],
    ["executor: another task's report", "/p/memory/reports/tasks/t2.json", executor, /own worktree/],
    [
      "executor: the worktree's state copy",
      "/wt/memory/state/execution.json",
      executor,
      /memory\/state\/execution\.json is dotagent's/,
    ],
    ["executor without a worktree: the checkout", "/p/src/a.ts", { ...executor, worktree: undefined }, null],
  ])("%s", (_name, path, writer, expected) => {
    const reason = denied(path, writer);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });
});

describe("reportWriter: read from the workflow's steps", () => {
  it.each([
    ["memory/reports/designs/minimal.json", "architect"],
    ["memory/reports/roundtable.json", "roundtable"],
    ["memory/reports/reflection.md", "reflector"],
    ["memory/reports/verification.json", "qa"],
    ["memory/reports/verification.rework-2.json", "dotagent"],
    ["memory/reports/plan.rework-1.json", "main"],
    ["memory/reports/final_design.json", "pick"],
    ["memory/reports/designs/a/b.json", undefined],
    ["memory/reports/reproduction.json", undefined],
  ])("develop: %s → %s", (rel, writer) => expect(reportWriter(rel, DEVELOP)).toBe(writer));

  const fix = resolveWorkflow("fix", (name) => ({ name, source: "built-in", def: BUILTIN_WORKFLOWS[name]! }));
  const own = resolveWorkflow("mine", (name) =>
    name === "mine"
      ? {
          name,
          source: ".dotagent/workflows/mine.json",
          def: {
            extends: "develop",
            insert: [
              {
                after: "IMPLEMENTATION",
                steps: [
                  { id: "AUDIT", kind: "agent", agent: "auditor", report: "audit.json" },
                  { id: "LINT", kind: "check", run: "npm run lint", report: "lint.json" },
                ],
              },
            ],
          },
        }
      : { name, source: "built-in", def: BUILTIN_WORKFLOWS[name]! },
  );
  it.each([
    ["fix", "memory/reports/reproduction.json", "reproducer"],
    ["fix", "memory/reports/tasks/t1.json", "executor"],
    ["fix", "memory/reports/verification.json", "qa"],
    ["fix", "memory/reports/demand.json", undefined],
    ["mine", "memory/reports/audit.json", "auditor"],
    ["mine", "memory/reports/lint.json", "dotagent"],
    ["mine", "memory/reports/lint.rework-1.json", "dotagent"],
    ["mine", "memory/reports/demand.json", "pm"],
  ])("%s: %s → %s", (name, rel, writer) => {
    const resolved = name === "fix" ? fix : own;
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.problems));
    expect(reportWriter(rel, resolved.flow)).toBe(writer);
  });

  it("a definition's own agent is named in the denial, and a file of none names the definition", () => {
    if (!own.ok) throw new Error(JSON.stringify(own.problems));
    const reason = (path: string) => {
      const v = judgeFileWrite(path, main, { ...ctx, flow: own.flow });
      return v.deny ? v.reason : null;
    };
    expect(reason("memory/reports/audit.json")).toMatch(
      /audit\.json is not yours to write: it is auditor's report: spawn auditor/,
    );
    expect(reason("memory/reports/notes.json")).toMatch(/no agent of the mine workflow writes it/);
    expect(judgeBashWrite("cat > memory/reports/audit.json <<EOF", { ...ctx, flow: own.flow }, main)).toMatchObject({
      deny: true,
      reason: expect.stringContaining("spawn auditor"),
    });
  });
});

describe("shellSegments: simple commands and their redirections", () => {
  it.each<[string, Array<{ words: string[]; writes: string[] }>]>([
    ["echo x > a", [{ words: ["echo", "x"], writes: ["a"] }]],
    ["echo x>>a 2>&1", [{ words: ["echo", "x"], writes: ["a"] }]],
    ["cmd 2>err &>all", [{ words: ["cmd"], writes: ["err", "all"] }]],
    [
      "a && cd 'm s' ; b | tee \"q r\"",
      [
        { words: ["a"], writes: [] },
        { words: ["cd", "m s"], writes: [] },
        { words: ["b"], writes: [] },
        { words: ["tee", "q r"], writes: [] },
      ],
    ],
    ["echo m\\ e > x # > y", [{ words: ["echo", "m e"], writes: ["x"] }]],
  ])("%s", (line, expected) => expect(shellSegments(line)).toEqual(expected));
});

describe("judgeBashWrite: writes into memory/state/ a line shows", () => {
  const denied = (line: string, cwd = "/p") => judgeBashWrite(line, { ...ctx, cwd }).deny;
  it.each([
    ["echo x > memory/state/phase.json", true],
    ["echo x >> /p/memory/state/events.jsonl", true],
    ["printf x | tee -a memory/state/events.jsonl", true],
    ["cp /tmp/forged.json memory/state/execution.json", true],
    ["cp -t memory/state /tmp/phase.json", true],
    ["mv memory/state/phase.json /tmp/", true],
    ["rm -f memory/state/phase.json", true],
    ["rm -rf memory", true],
    ["sed -i 's/a/b/' memory/state/phase.json", true],
    ["sed -i.bak -e s/a/b/ memory/state/phase.json", true],
    ["dd if=/dev/zero of=memory/state/phase.json count=1", true],
    ["cd memory/state && echo x > phase.json", true],
    ["cd /lnk && echo x > state/phase.json", true],
    ["echo x > ../memory/state/phase.json", false],
    ['echo x > "$ROOT/memory/state/phase.json"', true],
    ["sudo truncate -s0 memory/state/phase.json", true],
    ["git checkout HEAD -- memory/state/phase.json", true],
    ["git restore memory/state", true],
    ["git -C /p clean -fdx memory/state", true],
    ["git -C memory stash push state/phase.json", true],
    ["git checkout . && cat memory/state/phase.json", true],
    ["rm -rf /p && ls memory/state", true],
    ["git checkout main", false],
    ["cp -r memory/state/ /tmp/x && cp x .", false],
    ["git diff memory/state/phase.json", false],
    ["git log -p -- memory/state/events.jsonl", false],
    ["cat memory/state/phase.json", false],
    ["cat memory/state/phase.json > /tmp/copy.json", false],
    ["cp memory/state/phase.json /tmp/copy.json", false],
    ["grep -c x memory/state/events.jsonl 2>/dev/null", false],
    ["sed -n 1p memory/state/phase.json", false],
    ["echo x > memory/reports/notes.txt", false],
  ])("%s → denied: %s", (line, expected) => expect(denied(line)).toBe(expected));
  it("resolves from the call's cwd", () => {
    expect(denied("echo x > state/phase.json", "/p/memory")).toBe(true);
    expect(denied("echo x > state/phase.json", "/p")).toBe(false);
    expect(denied("echo x > ../memory/state/phase.json", "/p/src")).toBe(true);
  });
});
