// Every kind of mistake a person can make in a definition, told where they wrote it: the file and
// the place in that file (`insert[0].steps[0].run`, `remove[1]`), never a position in the list
// `extends` expanded to. One line per case: the project's files, the workflow resolved, its first
// problem as {source, written_path, path, message}.
import { describe, expect, it } from "vitest";
import { resolveWorkflow, type DefProblem } from "./resolve-workflow.js";
import { BUILTIN_AGENTS, BUILTIN_WORKFLOWS, type SourcedDef, type WorkflowDef } from "./workflow-defs.js";

const file = (name: string) => `.dotagent/workflows/${name}.json`;

function resolve(defs: Record<string, WorkflowDef>, name: string, unreadable?: Record<string, DefProblem[]>) {
  const lookup = (n: string): SourcedDef | undefined =>
    n in BUILTIN_WORKFLOWS
      ? { name: n, source: "built-in", def: BUILTIN_WORKFLOWS[n]! }
      : n in defs
        ? { name: n, source: file(n), def: defs[n]! }
        : undefined;
  return resolveWorkflow(name, lookup, { knownAgents: new Set(BUILTIN_AGENTS), unreadable: (n) => unreadable?.[n] });
}

const shell = (id: string, more: object = {}) => ({ id, kind: "shell" as const, run: "true", ...more });
const agent = (id: string, report: string, more: object = {}) => ({
  id,
  kind: "agent" as const,
  agent: "pm",
  report,
  ...more,
});
const develop = (edits: WorkflowDef): Record<string, WorkflowDef> => ({ mine: { extends: "develop", ...edits } });
const mine = file("mine");
const DEVELOP_IDS = "REQUIREMENTS, ARCHITECTURE, IMPLEMENTATION, VERIFICATION, REFLECTION";

// [mistake, project files, workflow resolved, its first problem: source, written_path, path (found at), message]
const cases: Array<[string, Record<string, WorkflowDef>, string, string, string, string, string]> = [
  // In an inserted step's own fields: told at insert[i].steps[j], not at the expanded steps[4].
  [
    "an inserted check without max_rounds",
    develop({
      insert: [
        { after: "VERIFICATION", steps: [{ id: "T", kind: "check", run: "npm test", rework: "IMPLEMENTATION" }] },
      ],
    }),
    "mine",
    mine,
    "insert[0].steps[0].max_rounds",
    "steps[4].max_rounds",
    "a rework cycle needs max_rounds (how many times T may send the work back before the workflow fails), e.g. 3",
  ],
  [
    "an inserted shell step without a command",
    develop({ insert: [{ before: "REFLECTION", steps: [shell("A"), shell("B", { run: " " })] }] }),
    "mine",
    mine,
    "insert[0].steps[1].run",
    "steps[5].run",
    'a shell step needs the shell command to run, e.g. "npm test"',
  ],
  [
    "an unknown agent in a replaced step",
    develop({ replace: [{ id: "REFLECTION", kind: "agent", agent: "ghost", report: "r.json" }] }),
    "mine",
    mine,
    "replace[0].agent",
    "steps[4].agent",
    'unknown agent "ghost": write .claude/agents/ghost.md (or name a built-in agent)',
  ],
  [
    "a gate on an inserted check",
    develop({
      insert: [{ after: "VERIFICATION", steps: [{ id: "T", kind: "check", run: "npm test", gate: "approve" }] }],
    }),
    "mine",
    mine,
    "insert[0].steps[0].gate",
    "steps[4].gate",
    "a check step has no gate: it passes or sends the work back; remove `gate`",
  ],
  [
    "a backreference in an inserted step's condition",
    develop({
      insert: [{ after: "VERIFICATION", steps: [shell("T", { when: { report: "request", matches: "(a)\\1" } })] }],
    }),
    "mine",
    mine,
    "insert[0].steps[0].when.matches",
    "steps[4].when.matches",
    '"(a)\\\\1" cannot be used: a backreference: patterns run in linear time and cannot refer back (SPEC §20, Patterns)',
  ],
  [
    "an unknown agent in a full list",
    { mine: { steps: [shell("A"), shell("B"), agent("C", "c.json", { agent: "ghost" })] } },
    "mine",
    mine,
    "steps[2].agent",
    "steps[2].agent",
    'unknown agent "ghost": write .claude/agents/ghost.md (or name a built-in agent)',
  ],
  // Edits naming steps that are not there.
  [
    "removing a step that is not there",
    develop({ remove: ["REFLECTION", "TESTS"] }),
    "mine",
    mine,
    "remove[1]",
    "remove[1]",
    'no step "TESTS" to remove; name one of REQUIREMENTS, ARCHITECTURE, IMPLEMENTATION, VERIFICATION',
  ],
  [
    "replacing a step that is not there",
    develop({ replace: [shell("TESTS")] }),
    "mine",
    mine,
    "replace[0].id",
    "replace[0].id",
    `no step "TESTS" to replace; name one of ${DEVELOP_IDS}, or use insert to add a step`,
  ],
  [
    "inserting after a step that is not there",
    develop({ insert: [{ after: "VERIFY", steps: [shell("T")] }] }),
    "mine",
    mine,
    "insert[0].after",
    "insert[0].after",
    `no step "VERIFY" to insert after; name one of ${DEVELOP_IDS}`,
  ],
  [
    "inserting before a step its own remove took away",
    develop({ remove: ["REFLECTION"], insert: [{ before: "REFLECTION", steps: [shell("T")] }] }),
    "mine",
    mine,
    "insert[0].before",
    "insert[0].before",
    'no step "REFLECTION" to insert before (remove[0] removes it); name one of REQUIREMENTS, ARCHITECTURE, IMPLEMENTATION, VERIFICATION',
  ],
  [
    "an insert with both after and before",
    develop({ insert: [{ after: "VERIFICATION", before: "REFLECTION", steps: [shell("T")] }] }),
    "mine",
    mine,
    "insert[0]",
    "insert[0]",
    "name exactly one of `after` or `before`: the step id to insert next to",
  ],
  [
    "steps beside extends",
    { mine: { extends: "develop", steps: [shell("T")] } },
    "mine",
    mine,
    "steps",
    "steps",
    "a definition that extends another edits its steps with insert, replace and remove; it cannot list steps too: drop `extends` or turn the steps into edits",
  ],
  [
    "edits without extends",
    { mine: { steps: [shell("T")], remove: ["T"] } },
    "mine",
    mine,
    "remove",
    "remove",
    'only a definition that extends another may remove steps; add `"extends": "develop"` or write the steps out',
  ],
  // Found only after expansion, told at the edit that caused it.
  [
    "an inserted step taking develop's id",
    develop({ insert: [{ after: "VERIFICATION", steps: [shell("VERIFICATION")] }] }),
    "mine",
    mine,
    "insert[0].steps[0].id",
    "steps[4].id",
    "VERIFICATION is also develop's steps[3].id; step ids must be unique: rename this step, or use replace to change develop's",
  ],
  [
    "an id inserted before the step it repeats",
    develop({ insert: [{ before: "REQUIREMENTS", steps: [shell("REFLECTION")] }] }),
    "mine",
    mine,
    "insert[0].steps[0].id",
    "steps[0].id",
    "REFLECTION is also develop's steps[4].id; step ids must be unique: rename this step, or use replace to change develop's",
  ],
  [
    "one id twice in a full list",
    { mine: { steps: [shell("A"), shell("A")] } },
    "mine",
    mine,
    "steps[1].id",
    "steps[1].id",
    "A is also steps[0].id; step ids must be unique: rename one of them",
  ],
  [
    "removing the step a check sends the work back to",
    develop({ remove: ["IMPLEMENTATION"] }),
    "mine",
    mine,
    "remove[0]",
    "steps[2].rework",
    "removes IMPLEMENTATION, the step VERIFICATION (develop's steps[3]) sends the work back to; remove or replace VERIFICATION too, or keep IMPLEMENTATION",
  ],
  [
    "an inserted rework to a step its own remove took away",
    develop({
      remove: ["REFLECTION"],
      insert: [
        {
          after: "VERIFICATION",
          steps: [{ id: "T", kind: "check", run: "true", rework: "REFLECTION", max_rounds: 1 }],
        },
      ],
    }),
    "mine",
    mine,
    "insert[0].steps[0].rework",
    "steps[4].rework",
    'no step "REFLECTION" to send the work back to (remove[0] removes it); name an earlier tasks or agent step (REQUIREMENTS, IMPLEMENTATION)',
  ],
  [
    "a step moved after the check that sends work back to it",
    develop({
      remove: ["IMPLEMENTATION"],
      insert: [{ after: "VERIFICATION", steps: [{ id: "IMPLEMENTATION", kind: "tasks" }] }],
    }),
    "mine",
    mine,
    "insert[0].steps[0]",
    "steps[3]",
    "puts IMPLEMENTATION after VERIFICATION (develop's steps[3]), which sends the work back to it: rework goes back to an earlier step; put IMPLEMENTATION before VERIFICATION",
  ],
  [
    "a rework target replaced by a shell step",
    develop({ replace: [shell("IMPLEMENTATION")] }),
    "mine",
    mine,
    "replace[0].kind",
    "steps[2].kind",
    "IMPLEMENTATION is a shell step, but VERIFICATION (develop's steps[3]) sends the work back to it: rework goes back to a tasks or an agent step; keep IMPLEMENTATION one, or replace VERIFICATION too",
  ],
  [
    "a rework forward in a full list",
    { mine: { steps: [{ id: "C", kind: "check", run: "true", rework: "D", max_rounds: 1 }, agent("D", "d.json")] } },
    "mine",
    mine,
    "steps[0].rework",
    "steps[0].rework",
    "D is not before C: rework goes back to an earlier step; name one (there is none before it: add one, or drop rework)",
  ],
  [
    "a rework to a shell step",
    {
      mine: {
        steps: [shell("S"), agent("A", "a.json"), { id: "C", kind: "check", run: "true", rework: "S", max_rounds: 1 }],
      },
    },
    "mine",
    mine,
    "steps[2].rework",
    "steps[2].rework",
    "S is a shell step: rework goes back to a tasks or an agent step; name one (A)",
  ],
  [
    "a rework to no step at all",
    { mine: { steps: [agent("A", "a.json"), { id: "C", kind: "check", run: "true", rework: "X", max_rounds: 1 }] } },
    "mine",
    mine,
    "steps[1].rework",
    "steps[1].rework",
    'no step "X" to send the work back to; name an earlier tasks or agent step (A)',
  ],
  [
    "a second tasks step inserted",
    develop({ insert: [{ after: "VERIFICATION", steps: [{ id: "MORE", kind: "tasks" }] }] }),
    "mine",
    mine,
    "insert[0].steps[0].kind",
    "steps[4].kind",
    "only one tasks step per workflow, and step IMPLEMENTATION (develop's steps[2]) is one: its reports have fixed places; keep one of them",
  ],
  [
    "an inserted step writing develop's report",
    develop({ insert: [{ after: "VERIFICATION", steps: [agent("AUDIT", "verification.json")] }] }),
    "mine",
    mine,
    "insert[0].steps[0].report",
    "steps[4].report",
    "verification.json is also the report of step VERIFICATION (develop's steps[3]); each step writes its own: name another report",
  ],
  [
    "a condition on a report no earlier step writes",
    { mine: { steps: [shell("S", { when: { report: "a.json", field: "x", equals: 1 } }), agent("A", "a.json")] } },
    "mine",
    mine,
    "steps[0].when.report",
    "steps[0].when.report",
    'a.json is not a report of an earlier step; a condition reads what an earlier step wrote, or "request": name one of those',
  ],
  [
    "removing the step whose report a condition reads",
    {
      base: { steps: [agent("A", "a.json"), shell("S", { when: { report: "a.json", field: "x", equals: 1 } })] },
      mine: { extends: "base", remove: ["A"] },
    },
    "mine",
    mine,
    "remove[0]",
    "steps[0].when.report",
    "removes A, whose report a.json step S (base's steps[1]) reads in its when; remove or replace S too, or keep A",
  ],
  [
    "removing every step",
    { mine: { extends: "fix", remove: ["REPRODUCE", "FIX", "TEST", "REFLECTION"] } },
    "mine",
    mine,
    "remove",
    "steps",
    "removes every step, and a workflow needs at least one: keep a step or insert one",
  ],
  [
    "more than 50 steps once inserted",
    develop({ insert: [{ after: "VERIFICATION", steps: Array.from({ length: 46 }, (_, i) => shell(`S${i}`)) }] }),
    "mine",
    mine,
    "insert",
    "steps",
    "51 steps once expanded: at most 50; insert fewer",
  ],
  [
    "a control character in an inserted command",
    develop({ insert: [{ after: "VERIFICATION", steps: [shell("T", { run: "npm test\r" })] }] }),
    "mine",
    mine,
    "insert[0].steps[0].run",
    "insert[0].steps[0].run",
    "holds a control character (U+000D at character 9): no text of a definition may (tab and line feed aside), as it could rewrite what a terminal shows or cut a command short; write the text without it",
  ],
  // Extends.
  [
    "an extends cycle of two files",
    { a: { extends: "b", remove: [] }, b: { extends: "a", remove: [] } },
    "a",
    file("b"),
    "extends",
    "extends",
    "extends form a cycle: a → b → a; remove this extends or another one in the cycle",
  ],
  [
    "a definition extending itself",
    { a: { extends: "a", remove: [] } },
    "a",
    file("a"),
    "extends",
    "extends",
    "extends form a cycle: a → a; remove this extends or another one in the cycle",
  ],
  [
    "extends of no workflow",
    { mine: { extends: "nope", remove: [] } },
    "mine",
    mine,
    "extends",
    "extends",
    'extends "nope", which is no workflow; name one `dotagent workflows` lists',
  ],
  [
    "extends of an invalid definition",
    { base: { steps: [agent("A", "a.json", { agent: "ghost" })] }, mine: { extends: "base", remove: [] } },
    "mine",
    mine,
    "extends",
    "extends",
    'extends "base", which is invalid itself: fix .dotagent/workflows/base.json first (`dotagent workflows validate base`)',
  ],
];

describe("a definition's problem is told where the person wrote it", () => {
  it.each(cases)("%s", (_name, defs, name, source, written_path, path, message) => {
    const resolved = resolve(defs, name);
    expect(resolved.ok).toBe(false);
    expect(!resolved.ok && resolved.problems[0]).toEqual({ source, written_path, path, message });
  });
});

describe("a definition that extends an invalid one", () => {
  it("names its extends first, then the parent's own problems in the parent's file", () => {
    const resolved = resolve(
      { base: { steps: [agent("A", "a.json", { agent: "ghost" })] }, mine: { extends: "base", remove: [] } },
      "mine",
    );
    expect(!resolved.ok && resolved.problems.map((p) => `${p.source}: ${p.written_path}`)).toEqual([
      `${mine}: extends`,
      `${file("base")}: steps[0].agent`,
    ]);
  });

  it("that could not be read (not JSON) names that file, and carries its problems", () => {
    const broken = [{ source: file("base"), path: "", written_path: "", message: "not JSON" }];
    const resolved = resolve({ mine: { extends: "base", remove: [] } }, "mine", { base: broken });
    expect(!resolved.ok && resolved.problems).toEqual([
      {
        source: mine,
        path: "extends",
        written_path: "extends",
        message:
          'extends "base", whose definition .dotagent/workflows/base.json is invalid: fix it first (`dotagent workflows validate base`)',
      },
      ...broken,
    ]);
  });

  it("a problem the child causes in the parent's step stays the child's: the parent alone is valid", () => {
    const resolved = resolve(
      { base: { extends: "develop", remove: ["REFLECTION"] }, mine: { extends: "base", remove: ["IMPLEMENTATION"] } },
      "mine",
    );
    expect(!resolved.ok && resolved.problems).toEqual([
      {
        source: mine,
        path: "steps[2].rework",
        written_path: "remove[0]",
        message:
          "removes IMPLEMENTATION, the step VERIFICATION (develop's steps[3]) sends the work back to; remove or replace VERIFICATION too, or keep IMPLEMENTATION",
      },
    ]);
    expect(resolve({ base: { extends: "develop", remove: ["REFLECTION"] } }, "base").ok).toBe(true);
  });
});

describe("valid definitions resolve", () => {
  it.each<[string, Record<string, WorkflowDef>, string, string[]]>([
    [
      "develop with a check inserted",
      develop({
        insert: [
          {
            after: "VERIFICATION",
            steps: [{ id: "T", kind: "check", run: "npm test", rework: "IMPLEMENTATION", max_rounds: 2 }],
          },
        ],
      }),
      "mine",
      ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "T", "REFLECTION"],
    ],
    [
      "a step removed and put back elsewhere, in order",
      develop({
        remove: ["REFLECTION"],
        insert: [{ after: "IMPLEMENTATION", steps: [agent("REFLECTION", "r.json")] }],
      }),
      "mine",
      ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "REFLECTION", "VERIFICATION"],
    ],
    [
      "a chain of two project files",
      {
        base: { extends: "develop", remove: ["REFLECTION"] },
        mine: { extends: "base", insert: [{ before: "VERIFICATION", steps: [shell("LINT")] }] },
      },
      "mine",
      ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "LINT", "VERIFICATION"],
    ],
  ])("%s", (_name, defs, name, ids) => {
    const resolved = resolve(defs, name);
    expect(resolved.ok && resolved.flow.steps.map((s) => s.id)).toEqual(ids);
  });
});

describe("an extending definition's description", () => {
  const described = (defs: Record<string, WorkflowDef>, name = "mine") => {
    const r = resolve(defs, name);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.flow.description;
  };
  const check = { id: "TESTS", kind: "check", run: "npm test", rework: "IMPLEMENTATION", max_rounds: 2 } as const;

  it("says what its edits did when it says nothing itself, not the parent's story", () => {
    expect(described(develop({ insert: [{ after: "VERIFICATION", steps: [check] }] }))).toBe("develop, plus TESTS");
    expect(described(develop({ remove: ["ARCHITECTURE"] }))).toBe("develop, without ARCHITECTURE");
    expect(
      described({
        base: { extends: "develop", remove: ["REFLECTION"] },
        mine: { extends: "base", remove: ["ARCHITECTURE"] },
      }),
    ).toBe("develop, without REFLECTION, ARCHITECTURE");
  });

  it("its own description wins; an extension without edits keeps the parent's", () => {
    expect(described(develop({ description: "develop and our tests", remove: ["ARCHITECTURE"] }))).toBe(
      "develop and our tests",
    );
    expect(described(develop({}))).toBe(
      "requirements → a design the person picks → tasks in worktrees → verification → reflection",
    );
  });
});
