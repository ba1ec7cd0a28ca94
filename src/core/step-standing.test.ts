import { describe, expect, it } from "vitest";
import { cutOffOf, standingOf, standingWords, type StandingFacts } from "./step-standing.js";
import { atPhase, execution, task } from "./fixtures.test-support.js";
import type { OwnerVerdict } from "./ownership.js";

const owner = { pid: 4242, host: "dev", at: "2026-11-20T11:00:00Z" };
const running = (id: string) => task(id, { status: "running", started_at: "2026-11-20T11:00:00Z", owner });
const done = (id: string) => task(id, { status: "complete" });
const verdicts = (entries: Record<string, OwnerVerdict>) => new Map(Object.entries(entries));
const plan = (phase: string | null, action = "run_tasks") => ({ phase, next: { action } });
const qa = { agent: "qa", output: "memory/reports/verification.json", owner };

// One line per case: the stored state, the owners' verdicts and the plan → the first line's words.
const cases: Array<[string, StandingFacts, string]> = [
  // issue 42: right after a kill, tasks running under a gone session read interrupted, whatever phase_status and the plan say.
  [
    "tasks step pending, a task's session gone, the plan past it",
    {
      phase: atPhase("IMPLEMENTATION", { phase_status: "pending" }),
      execution: execution([done("t1"), done("t2"), running("t3")]),
      owners: verdicts({ t3: "gone" }),
      plan: plan("VERIFICATION", "spawn_agent"),
    },
    "interrupted: the session running t3 ended",
  ],
  [
    "two tasks gone",
    {
      phase: atPhase("IMPLEMENTATION", { phase_status: "pending" }),
      execution: execution([running("t1"), running("t2")]),
      owners: verdicts({ t1: "gone", t2: "gone" }),
      plan: plan("IMPLEMENTATION"),
    },
    "interrupted: the sessions running t1, t2 ended",
  ],
  [
    "tasks step pending, a task running live",
    {
      phase: atPhase("IMPLEMENTATION", { phase_status: "pending" }),
      execution: execution([running("t1"), task("t2")]),
      owners: verdicts({ t1: "live" }),
      plan: plan("IMPLEMENTATION"),
    },
    "in progress",
  ],
  [
    "a task on another host within its lease",
    {
      phase: atPhase("IMPLEMENTATION", { phase_status: "pending" }),
      execution: execution([running("t1")]),
      owners: verdicts({ t1: "unknown" }),
      plan: plan("IMPLEMENTATION"),
    },
    "in progress",
  ],
  [
    "tasks step pending, one done, none running",
    {
      phase: atPhase("IMPLEMENTATION", { phase_status: "pending" }),
      execution: execution([done("t1"), task("t2")]),
      owners: verdicts({}),
      plan: plan("IMPLEMENTATION"),
    },
    "in progress",
  ],
  [
    "tasks step pending, nothing started",
    {
      phase: atPhase("IMPLEMENTATION", { phase_status: "pending" }),
      execution: execution([task("t1")]),
      owners: verdicts({}),
      plan: plan("IMPLEMENTATION"),
    },
    "not started",
  ],
  [
    "an agent at work, pending",
    {
      phase: atPhase("VERIFICATION", { phase_status: "pending", agents: [qa] }),
      execution: undefined,
      owners: verdicts({ "agent:memory/reports/verification.json": "live" }),
      plan: plan("VERIFICATION", "await_agents"),
    },
    "in progress",
  ],
  [
    "an agent whose session ended",
    {
      phase: atPhase("VERIFICATION", { phase_status: "in_progress", agents: [qa] }),
      execution: undefined,
      owners: verdicts({ "agent:memory/reports/verification.json": "gone" }),
      plan: plan("VERIFICATION", "spawn_agent"),
    },
    "interrupted: the session running the qa agent ended",
  ],
  [
    "the output is there, the plan moves on",
    {
      phase: atPhase("REQUIREMENTS", { phase_status: "pending" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("ARCHITECTURE", "spawn_agent"),
    },
    "done, not yet recorded",
  ],
  [
    "a gate waits for the person",
    {
      phase: atPhase("REQUIREMENTS", { phase_status: "pending" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("REQUIREMENTS", "await_approval"),
    },
    "waiting for approval",
  ],
  [
    "phase start ran",
    {
      phase: atPhase("REQUIREMENTS", { phase_status: "in_progress" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("REQUIREMENTS", "spawn_agent"),
    },
    "in progress",
  ],
  // issue 42: a killed `dotagent run` records no agent of its own; its lock, left behind, says it ended.
  [
    "phase start ran, a dotagent run's lock left by a process gone",
    {
      phase: atPhase("ARCHITECTURE", { phase_status: "in_progress" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("ARCHITECTURE", "spawn_agent"),
      run: "gone",
    },
    "interrupted: the dotagent run working on it ended",
  ],
  [
    "a dotagent run killed with an architect at work: its session record names it",
    {
      phase: atPhase("ARCHITECTURE", { phase_status: "in_progress" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("ARCHITECTURE", "spawn_agent"),
      run: "gone",
      runAgents: ["architect robust"],
    },
    "interrupted: the dotagent run working on it ended with the architect robust agent at work",
  ],
  [
    "a dotagent run at work",
    {
      phase: atPhase("ARCHITECTURE", { phase_status: "in_progress" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("ARCHITECTURE", "spawn_agent"),
      run: "alive",
    },
    "in progress: dotagent run is between two agents",
  ],
  [
    "a dotagent run with two agents at work",
    {
      phase: atPhase("ARCHITECTURE", { phase_status: "in_progress" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("ARCHITECTURE", "spawn_agent"),
      run: "alive",
      runAgents: ["architect minimal", "architect robust"],
    },
    "in progress: dotagent run has the architect minimal, architect robust agents at work",
  ],
  [
    "a killed run's gate still waits for the person",
    {
      phase: atPhase("REQUIREMENTS", { phase_status: "pending" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("REQUIREMENTS", "await_approval"),
      run: "gone",
    },
    "waiting for approval",
  ],
  [
    "nothing yet",
    {
      phase: atPhase("VERIFICATION", { phase_status: "pending" }),
      execution: execution([done("t1")]),
      owners: verdicts({}),
      plan: plan("VERIFICATION", "spawn_agent"),
    },
    "not started",
  ],
  [
    "failed stays failed",
    {
      phase: atPhase("VERIFICATION", { phase_status: "failed" }),
      execution: undefined,
      owners: verdicts({}),
      plan: plan("VERIFICATION", "resolve_failed_agent"),
    },
    "failed",
  ],
];

describe("standingOf / standingWords", () => {
  it.each(cases)("%s", (_name, facts, words) => {
    expect(standingWords(standingOf(facts))).toBe(words);
  });

  it("names at most five pieces of interrupted work", () => {
    expect(standingWords({ kind: "interrupted", tasks: ["a", "b", "c", "d", "e", "f", "g"], agents: [] })).toBe(
      "interrupted: the sessions running a, b, c, d, e and 2 more ended",
    );
  });
});

describe("cutOffOf: what `dotagent report` says a kill left cut off", () => {
  const impl = atPhase("IMPLEMENTATION", { phase_status: "in_progress" });
  const rows = [
    { id: "task-001", status: "complete" },
    { id: "task-002", status: "running" },
  ];
  it.each([
    ["in progress: nothing", { kind: "at_work" } as const, null],
    [
      "a session gone with a task",
      { kind: "interrupted", tasks: ["task-002"], agents: [] } as const,
      {
        step: "IMPLEMENTATION",
        by: "session",
        tasks: ["task-002"],
        agents: [],
        finished: ["REQUIREMENTS", "ARCHITECTURE", "task-001"],
        words: "interrupted: the session running task-002 ended",
      },
    ],
    [
      "a dotagent run killed between two agents",
      { kind: "run_ended", agents: [] } as const,
      {
        step: "IMPLEMENTATION",
        by: "dotagent_run",
        tasks: [],
        agents: [],
        finished: ["REQUIREMENTS", "ARCHITECTURE", "task-001"],
        words: "interrupted: the dotagent run working on it ended",
      },
    ],
  ])("%s", (_name, standing, cut) => {
    expect(cutOffOf(standing, impl, rows)).toEqual(cut);
  });
});
