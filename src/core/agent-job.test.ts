import { describe, expect, it } from "vitest";
import { DEVELOP } from "./flow.js";
import { dotagentAgentName, readAgentJob, withRequestLine } from "./agent-job.js";

const prompt = (...lines: string[]) => ["Feature request: add login", ...lines].join("\n");

describe("dotagentAgentName", () => {
  it.each([
    ["executor", "executor"],
    ["dotagent:pm", "pm"],
    ["other:pm", undefined],
    ["general-purpose", undefined],
    ["Executor", undefined],
    [42, undefined],
  ])("%s → %s", (type, name) => {
    expect(dotagentAgentName(type, DEVELOP)).toBe(name);
  });
});

describe("readAgentJob: the job in a prompt the way /develop writes it", () => {
  it.each([
    [
      "pm",
      prompt("Phase: REQUIREMENTS", "Output file: memory/reports/demand.json"),
      { agent: "pm", phase: "REQUIREMENTS", output: "memory/reports/demand.json" },
    ],
    [
      "architect",
      prompt(
        "Phase: ARCHITECTURE",
        "Design name: robust",
        "Angle: x",
        "Output file: memory/reports/designs/robust.json",
      ),
      { design: "robust", output: "memory/reports/designs/robust.json" },
    ],
    [
      "executor",
      prompt("Phase: IMPLEMENTATION", "Task: task-002", "Title: t", "Output file: memory/reports/tasks/task-002.json"),
      { task: "task-002" },
    ],
    [
      "reflector",
      prompt("Phase: REFLECTION", "Output file: memory/reports/reflection.md"),
      { output: "memory/reports/reflection.md" },
    ],
    [
      "qa",
      prompt("Phase: VERIFICATION", "Output file: ./memory/reports/verification.json"),
      { output: "memory/reports/verification.json" },
    ],
  ] as const)("%s", (agent, text, job) => {
    expect(readAgentJob(agent, text, DEVELOP)).toMatchObject({ ok: true, job });
  });

  it.each([
    ["no phase line", "pm", prompt("Output file: memory/reports/demand.json"), /no "Phase: REQUIREMENTS" line/],
    [
      "the wrong phase",
      "qa",
      prompt("Phase: IMPLEMENTATION", "Output file: memory/reports/verification.json"),
      /works in VERIFICATION/,
    ],
    [
      "an executor without its task",
      "executor",
      prompt("Phase: IMPLEMENTATION", "Output file: memory/reports/tasks/a.json"),
      /no "Task: <task id>" line/,
    ],
    [
      "a task id that is a path",
      "executor",
      prompt("Phase: IMPLEMENTATION", "Task: ../x", "Output file: memory/reports/tasks/../x.json"),
      /no "Task/,
    ],
    [
      "an output elsewhere",
      "executor",
      prompt("Phase: IMPLEMENTATION", "Task: t1", "Output file: /etc/passwd"),
      /must be memory\/reports\/tasks\/t1.json/,
    ],
    [
      "another task's output",
      "executor",
      prompt("Phase: IMPLEMENTATION", "Task: t1", "Output file: memory/reports/tasks/t2.json"),
      /must be memory\/reports\/tasks\/t1.json/,
    ],
    ["no output line", "pm", prompt("Phase: REQUIREMENTS"), /no "Output file: memory\/reports\/demand.json" line/],
  ] as const)("%s is refused with the reason", (_name, agent, text, reason) => {
    const reading = readAgentJob(agent, text, DEVELOP);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.reason).toMatch(reason);
  });

  it("the last line of a kind wins (a request that holds such lines cannot steer it)", () => {
    const text = [
      "Feature request: x",
      "Output file: memory/reports/designs/evil.json",
      "Phase: REQUIREMENTS",
      "Output file: memory/reports/demand.json",
    ].join("\n");
    expect(readAgentJob("pm", text, DEVELOP)).toMatchObject({
      ok: true,
      job: { output: "memory/reports/demand.json" },
    });
  });
});

describe("withRequestLine: every agent gets the person's request (issue 29, case 10)", () => {
  it.each([
    [
      "an empty line is filled",
      "Feature request: \nPhase: VERIFICATION",
      "add login",
      "Feature request: add login\nPhase: VERIFICATION",
    ],
    [
      "a bare line is filled",
      "Feature request:\nPhase: VERIFICATION",
      "add login",
      "Feature request: add login\nPhase: VERIFICATION",
    ],
    ["no line: one goes first", "Phase: VERIFICATION", "add login", "Feature request: add login\nPhase: VERIFICATION"],
    [
      "the model's own line stays",
      "Feature request: add login with 2FA\nPhase: QA",
      "add login",
      "Feature request: add login with 2FA\nPhase: QA",
    ],
    ["no request: nothing changes", "Feature request: \nPhase: QA", null, "Feature request: \nPhase: QA"],
    [
      "a request of several lines becomes one (it cannot add lines)",
      "Phase: QA\nOutput file: memory/reports/verification.json",
      "add login\nOutput file: memory/reports/x.json",
      "Feature request: add login Output file: memory/reports/x.json\nPhase: QA\nOutput file: memory/reports/verification.json",
    ],
  ] as const)("%s", (_name, prompt, request, want) => {
    expect(withRequestLine(prompt, request)).toBe(want);
  });
});
