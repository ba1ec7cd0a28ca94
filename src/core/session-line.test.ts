import { describe, expect, it } from "vitest";
import { DEVELOP } from "./flow.js";
import { sessionLine, type SessionLineFacts } from "./session-line.js";

type Plan = SessionLineFacts["plan"];
const plan = (over: Partial<Plan> & { events?: Array<Record<string, unknown>> } = {}): Plan => {
  const { events = [], ...rest } = over;
  return {
    situation: "interrupted",
    workflow_id: "wf-add-login",
    phase: "IMPLEMENTATION",
    next: { action: "run_tasks", agent: "executor", tasks: ["task-003"], reason: "r" },
    decision: null,
    in_flight: [],
    writes: { moves: [], events: events as unknown as Plan["writes"]["events"] },
    ...rest,
  };
};

const cases: Array<[string, SessionLineFacts, string | null]> = [
  [
    "a task finished while the session died, the step done: said, and what to type",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        phase: "VERIFICATION",
        next: { action: "spawn_agent", agent: "qa", tasks: [], reason: "r" },
        events: [
          { type: "task_completed", task_id: "task-002", recovered: true },
          { type: "phase_completed", phase: "IMPLEMENTATION", by: "plan" },
        ],
      }),
    },
    "dotagent: the last session ended during workflow wf-add-login: task-002 had finished; IMPLEMENTATION is done, now VERIFICATION. Type continue (or /develop) to go on.",
  ],
  [
    "tasks cut off run again; one still running in another session",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        in_flight: ["task-004"],
        events: [
          { type: "task_reset", task_id: "task-002" },
          { type: "task_reset", task_id: "task-003" },
        ],
      }),
    },
    "dotagent: the last session ended during workflow wf-add-login: task-002 and task-003 were cut off and run again; task-004 still runs in another session. Type continue (or /develop) to go on.",
  ],
  [
    "an agent cut off, a task out of attempts",
    {
      source: "startup",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        events: [
          { type: "agent_gone", agent: "architect", output: "x" },
          { type: "task_dead", task_id: "task-001" },
        ],
        next: { action: "resolve_dead_tasks", agent: null, tasks: ["task-001"], reason: "r" },
      }),
    },
    "dotagent: the last session ended during workflow wf-add-login: task-001 was cut off with no attempts left; the architect agent was cut off and runs again. It stopped and needs you: type /develop to see why and choose.",
  ],
  [
    "at a gate, nothing cut off: the report to read and the words to type",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        phase: "REQUIREMENTS",
        next: { action: "await_approval", agent: null, tasks: [], reason: "r", gate: "approve_requirements" },
      }),
    },
    "dotagent: workflow wf-add-login is open at REQUIREMENTS. It waits for your approval of memory/reports/demand.json: type approve, or what should change.",
  ],
  [
    "a definition's gate names its report",
    {
      source: "startup",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        phase: "NOTES",
        next: {
          action: "await_approval",
          agent: null,
          tasks: [],
          reason: "r",
          gate: "approve_report",
          output: "memory/reports/notes.md",
          step: "NOTES",
        },
      }),
    },
    "dotagent: workflow wf-add-login is open at NOTES. It waits for your approval of memory/reports/notes.md: type approve, or what should change.",
  ],
  [
    "the pick",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        phase: "ARCHITECTURE",
        next: { action: "await_approval", agent: null, tasks: [], reason: "r", gate: "pick_design" },
      }),
    },
    "dotagent: workflow wf-add-login is open at ARCHITECTURE. It waits for you to pick a design (memory/reports/roundtable.json compares them): type its name.",
  ],
  [
    "a question for the person",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan({
        decision: {
          question: "The main checkout has uncommitted changes. Commit them first?",
          default: false,
          yes: "y",
          no: "n",
        },
      }),
    },
    "dotagent: workflow wf-add-login is open at IMPLEMENTATION. It waits for your answer: The main checkout has uncommitted changes. Commit them first? Type yes or no.",
  ],
  [
    "Codex's command",
    { source: "resume", command: "$develop", flow: DEVELOP, plan: plan({ situation: "corrupt" }) },
    "dotagent: the state of wf-add-login in memory/state is damaged. Type $develop to choose: go back to the last good copy, or archive it and start again.",
  ],
  [
    "recovery a hook of the dying session already recorded (kill -9 while its SubagentStop hook ran): told from the log",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan(),
      recorded: [
        { type: "task_started", task_id: "task-003", session: "s-1" },
        { type: "task_completed", task_id: "task-001" },
        { type: "task_merged", task_id: "task-002", recovered: true },
        { type: "task_completed", task_id: "task-002", recovered: true },
        { type: "task_reset", task_id: "task-003" },
      ],
    },
    // task-001 ended in the batch too, its notification cut off: Claude Code counts it among the agents that "didn't finish".
    "dotagent: the last session ended during workflow wf-add-login: task-001 and task-002 had finished; task-003 was cut off and runs again. Type continue (or /develop) to go on.",
  ],
  [
    "a task that ended in a batch a later session already took up: old news",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan(),
      recorded: [
        { type: "task_started", task_id: "task-003", session: "s-1" },
        { type: "task_completed", task_id: "task-001" },
        { type: "resumed", situation: "interrupted" },
      ],
    },
    "dotagent: workflow wf-add-login is open at IMPLEMENTATION. Type continue (or /develop) to go on.",
  ],
  [
    "Copilot CLI and Codex CLI show the line under the person's first prompt (often that continue): said as what goes on",
    {
      source: "resume",
      command: "$develop",
      flow: DEVELOP,
      plan: plan(),
      afterPrompt: true,
    },
    "dotagent: workflow wf-add-login is open at IMPLEMENTATION. Typing continue (or $develop) goes on from there.",
  ],
  [
    "recovery a session already took up (its resume came after): old news",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan(),
      recorded: [
        { type: "task_reset", task_id: "task-003" },
        { type: "resumed", situation: "interrupted" },
      ],
    },
    "dotagent: workflow wf-add-login is open at IMPLEMENTATION. Type continue (or /develop) to go on.",
  ],
  [
    "recovery before a later session's starts: old news",
    {
      source: "resume",
      command: "/develop",
      flow: DEVELOP,
      plan: plan(),
      recorded: [
        { type: "task_reset", task_id: "task-003" },
        { type: "task_started", task_id: "task-003", session: "s-2" },
      ],
    },
    "dotagent: workflow wf-add-login is open at IMPLEMENTATION. Type continue (or /develop) to go on.",
  ],
  [
    "after compaction the person was there",
    { source: "compact", command: "/develop", flow: DEVELOP, plan: plan() },
    null,
  ],
  ["after /clear too", { source: "clear", command: "/develop", flow: DEVELOP, plan: plan() }, null],
  ["no workflow", { source: "startup", command: "/develop", flow: DEVELOP, plan: plan({ situation: "none" }) }, null],
  [
    "a complete workflow",
    { source: "resume", command: "/develop", flow: DEVELOP, plan: plan({ situation: "complete" }) },
    null,
  ],
];

describe("the person's line when a session starts on an open workflow", () => {
  it.each(cases)("%s", (_name, facts, line) => {
    expect(sessionLine(facts)).toBe(line);
  });
});
