// The scripted model: a deterministic player that does what the skills and agent files say,
// the way a model that follows them to the letter would. It has no memory of its own: every
// answer is derived from the request the client sends (system prompt, tools, messages), so a
// session killed at any point and resumed continues from what the transcript shows.
//
// Main agent: finds the newest `dotagent resume --json` output in its messages (the /develop
// expansion or a Bash result), and plays the steps skills/develop/SKILL.md gives for
// `next.action`, counting the tool calls it already made since. Sub-agents (recognised by their
// agent file's body in the system prompt): Read the output file, Write the report, return.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { replyAnswer } from "../../../src/core/authority.js";

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}
export interface ApiMessage {
  role: string;
  content: string | ContentBlock[];
}
export interface ApiRequest {
  model?: string;
  stream?: boolean;
  system?: string | Array<{ type: string; text?: string }>;
  tools?: Array<{ name: string }>;
  messages?: ApiMessage[];
}

export type Block =
  { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
export interface Reply {
  who: string;
  stop: "end_turn" | "tool_use";
  blocks: Block[];
}

interface Call {
  name: string;
  input: Record<string, unknown>;
}
/** One assistant message: tool calls made together, or the end of the turn with a text. */
type Step = { calls: Call[] } | { end: string };

export const AGENTS = ["pm", "architect", "roundtable", "executor", "qa", "reflector"] as const;
/** The plan the scripted person approves: three tasks in a chain. */
export const TASKS = [
  { id: "task-001", title: "Add password_hash to users", depends_on: [] as string[] },
  { id: "task-002", title: "Login route with tests", depends_on: ["task-001"] },
  { id: "task-003", title: "Session middleware with tests", depends_on: ["task-002"] },
];
export const DESIGNS = ["minimal", "robust"];
export type TaskPlan = Array<{ id: string; title: string; depends_on: string[] }>;
/** `n` tasks that depend on nothing: the plan of the parallel-batch journey. */
export const independentTasks = (n: number): TaskPlan =>
  Array.from({ length: n }, (_, i) => ({
    id: `task-${String(i + 1).padStart(3, "0")}`,
    title: `Independent part ${i + 1}`,
    depends_on: [],
  }));

/** What a journey may change in the script: the task plan, and `--max-parallel` given once the plan is recorded. */
export interface PolicyOptions {
  tasks?: TaskPlan;
  maxParallel?: number;
  /**
   * What an executor changes besides its report: `own` writes `<task>.txt`, `shared` rewrites the
   * second line of `shared.txt` (two such tasks conflict). With a `Worktree:` line (SPEC §19) it
   * writes there and commits (`git -C <worktree> add -A && git -C <worktree> commit …`, one Bash
   * call); without one it writes in the project. Unset: the report only, as before.
   */
  executorWrites?: "own" | "shared";
  /** true: the executor commits its work in its worktree itself (the agent file leaves that to dotagent's landing). */
  executorCommits?: boolean;
  /**
   * true: an executor with a worktree first writes its file into the main checkout (the mistake
   * the write guard denies, SPEC §11), then, denied, in its worktree.
   */
  executorStrays?: boolean;
  /**
   * Agents (a project's own, from its .claude/agents/) that end their first turn with plain text
   * and no report, as a careless agent does: only SubagentStop's block can send them back.
   */
  forgetsReport?: readonly string[];
  /**
   * One mistake a real model makes, once, at its point; otherwise the script is followed to the
   * letter (issue 29's misbehaving model). `approve_unasked`: at the REQUIREMENTS gate it runs
   * `phase approve REQUIREMENTS` before showing the demand or asking. `pick_for_person`: at the
   * pick it writes final_design.json itself (the recommended design, "approved_by": "user") and
   * runs `phase approve ARCHITECTURE` before asking. `restart_unasked`: mid-IMPLEMENTATION (task-001
   * done) it runs `init --request '<request>' --yes`, a fresh start nobody asked for.
   * `report_by_main`: instead of spawning qa it writes verification.json itself ("passed": true).
   * `state_by_hand`: instead of spawning the architects it writes phase.json, marking
   * ARCHITECTURE complete. `rollback_unasked`: mid-IMPLEMENTATION it runs `rollback --to ARCHITECTURE --yes`.
   * `isolation_for_person`: asked whether to commit the checkout's changes (the install left
   * uncommitted), it runs the decision's yes itself. `report_by_bash`: instead of spawning qa it
   * writes verification.json with a Bash heredoc; `report_by_script`: with `node -e` (a line the
   * hook cannot read). `complete_unasked`: instead of spawning qa it
   * runs `phase complete VERIFICATION`. `edit_execution`: it Edits execution.json, marking
   * task-002 complete. `spawn_early`: at the REQUIREMENTS gate it spawns an architect.
   * `double_spawn`: task-001's executor twice in one message. `spawn_ahead`: task-002 beside
   * task-001 (its dependency not met). `spawn_done`: task-001 again beside task-002.
   * `spawn_unknown`: task-009 beside task-001. `fail_early`: right after the executors' spawn it
   * runs `task fail task-001`. The agents, once each: `executor_strays` (its code into the main
   * checkout first), `no_report` (task-001's executor hands back without its report),
   * `wrong_path` (pm writes requirements.json), `fenced_report` (qa's verdict in a ```json
   * fence), `missing_field` (qa's verdict without `passed`), `markdown_in_json` (Markdown in
   * reflection.json). Both at once: `respawn_failed` (the first pm hands back without its report
   * through both reminders, so REQUIREMENTS fails; the main agent then spawns the pm again at
   * once instead of asking the person). `retry_unasked`: task-001's executor reports failed until
   * the task is dead; the main agent then runs the retry's `--yes` itself, before asking.
   * `schedule_approval` (issue 40): at the REQUIREMENTS gate, instead of asking, it schedules the
   * prompt "approve" for the next minute (CronCreate, no permission asked in auto mode) and ends
   * its turn; the fire reaches the session as a prompt (the interactive terminal only: print mode
   * ends the session with the turn).
   */
  deviation?: Deviation;
  /**
   * Claude Code's own Workflow tool (issue 43): the person's prompt "use a workflow…" gets one
   * `Workflow` call with this script and args, "resume workflow run <runId>" the same call with
   * `resumeFromRunId`; then the turn ends ("workflow launched"; "workflow done" once the run's
   * completed <task-notification> is in). Each workflow agent (its task framed
   * as "[Workflow harness — computed task]") answers `result <first word of its task>`.
   * "resume the cut-off workflow" follows dotagent's SessionStart briefing: the exact call of its
   * line `… call exactly: Workflow({scriptPath: "…", resumeFromRunId: "wf_…", args: …})`, verbatim
   * (its scriptPath, run id and args, no inline script); with no such line, the turn ends saying so.
   */
  workflow?: { script: string; args?: unknown };
}

export const DEVIATIONS = [
  // The main agent: the person's decisions.
  "approve_unasked",
  "pick_for_person",
  "schedule_approval",
  "restart_unasked",
  "rollback_unasked",
  "isolation_for_person",
  // The main agent: state and reports.
  "report_by_main",
  "report_by_bash",
  "report_by_script",
  "complete_unasked",
  "state_by_hand",
  "edit_execution",
  // The main agent: spawns.
  "spawn_early",
  "double_spawn",
  "spawn_ahead",
  "spawn_done",
  "spawn_unknown",
  "fail_early",
  // The agents.
  "executor_strays",
  "no_report",
  "wrong_path",
  "fenced_report",
  "missing_field",
  "markdown_in_json",
  // An agent and the main agent.
  "respawn_failed",
  "retry_unasked",
] as const;
export type Deviation = (typeof DEVIATIONS)[number];

const text = (c: string | ContentBlock[] | unknown): string => {
  if (typeof c === "string") return c;
  if (Array.isArray(c))
    return c.map((b) => (b && typeof b === "object" && "text" in b ? String((b as ContentBlock).text) : "")).join("\n");
  return "";
};

/** The text of a message's tool results (a helper's output). */
const resultsText = (m: ApiMessage): string =>
  Array.isArray(m.content)
    ? m.content
        .filter((c) => c.type === "tool_result")
        .map((c) => (typeof c.content === "string" ? c.content : text(c.content)))
        .join("\n")
    : "";

/** Every top-level JSON object in a text. */
export function jsonObjectsIn(source: string): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  for (let start = source.indexOf("{"); start !== -1; start = source.indexOf("{", start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < source.length; i++) {
      const ch = source[i];
      if (inString) {
        if (ch === "\\") i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        try {
          found.push(JSON.parse(source.slice(start, i + 1)) as Record<string, unknown>);
          start = i;
        } catch {
          // not JSON after all
        }
        break;
      }
    }
  }
  return found;
}

export interface ResumePlan {
  situation?: string;
  workflow_id?: string | null;
  phase?: string | null;
  next: {
    action: string;
    agent?: string | null;
    tasks?: string[];
    reason?: string;
    designs?: string[];
    gate?: string;
    round?: number;
    plan_file?: string;
    plan_from?: string;
    output?: string;
    step?: string;
  };
  decision?: { question: string; yes: string; no: string; answers?: string } | null;
  error?: unknown;
  in_flight?: string[];
  [key: string]: unknown;
}
/** The newest dotagent answer in a text that says what to do next (resume, a command, a hook line), or an error. */
const planIn = (s: string): ResumePlan | undefined =>
  jsonObjectsIn(s)
    .filter(
      (o) =>
        ("next" in o &&
          o.next !== null &&
          typeof o.next === "object" &&
          typeof (o.next as { action?: unknown }).action === "string") ||
        "error" in o,
    )
    .at(-1) as ResumePlan | undefined;

type Event =
  /**
   * `handed`: a SessionStart briefing handed the plan's question as the next step
   * (src/claude/briefing.ts); `either`: its words count the person's reply on either side of it.
   */
  | { kind: "resume"; plan: ResumePlan; handed?: "after" | "either" }
  | { kind: "develop"; args: string }
  /** The /develop skill's plan line did not run (`[not run: …]`: a hook refused it). */
  | { kind: "plan_not_run" }
  | { kind: "person"; text: string }
  | { kind: "notified"; text: string }
  | { kind: "said"; text: string }
  | { kind: "call"; id: string; name: string; input: Record<string, unknown> }
  | { kind: "result"; id: string; text: string; isError: boolean };

interface Context {
  deviation?: Deviation | undefined;
  tasks: TaskPlan;
  maxParallel?: number | undefined;
  helper: string;
  project: string;
  request: string;
  agentTypes: string[];
  events: Event[];
  /** Where the plan being played is in `events` (the calls after it are its steps). */
  planAt?: number;
}

/** A hook's context or a background agent's notification, wherever the client put it. */
function systemEvents(t: string, events: Event[]): boolean {
  let found = false;
  if (/<task-notification>|<agent-message from=/.test(t)) {
    // A task-notification that follows its agent's hand-back (an agent-message) brings nothing new.
    const delivered = new Set(
      events.flatMap((e) =>
        e.kind === "notified" ? [...e.text.matchAll(/<agent-message from="([\w-]+)"/g)].map((m) => m[1]) : [],
      ),
    );
    const ids = [...t.matchAll(/<task-id>([\w-]+)<\/task-id>/g)].map((m) => m[1]);
    const echo = !/<agent-message from=/.test(t) && ids.length > 0 && ids.every((id) => delivered.has(id));
    if (!echo) events.push({ kind: "notified", text: t });
    found = true;
  }
  const line = [...t.matchAll(/dotagent next: (\{.*\})/g)].at(-1);
  if (line) {
    const plan = planIn(line[1]!);
    // The briefing of a session that starts with a question pending says how to hand it: its words are followed.
    const handed =
      plan?.decision && /show them decision\.question and decision\.answers/.test(t)
        ? {
            handed: /newest message, just before or after this text/.test(t) ? ("either" as const) : ("after" as const),
          }
        : {};
    if (plan) events.push({ kind: "resume", plan, ...handed });
    found = true;
  }
  return found;
}

function eventsOf(messages: ApiMessage[]): Event[] {
  const events: Event[] = [];
  for (const m of messages) {
    const blocks: ContentBlock[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "system") {
      // The environment, the agent list, SessionStart context: skipped. A hook's `dotagent next:`
      // line and a background agent's notification are part of the loop.
      for (const b of blocks) if (b.type === "text") systemEvents(String(b.text ?? ""), events);
      continue;
    }
    for (const b of blocks) {
      if (m.role === "assistant") {
        if (b.type === "tool_use")
          events.push({ kind: "call", id: String(b.id), name: String(b.name), input: b.input ?? {} });
        else if (b.type === "text" && b.text) events.push({ kind: "said", text: b.text });
        continue;
      }
      if (b.type === "tool_result") {
        const t = text(b.content);
        events.push({ kind: "result", id: String(b.tool_use_id), text: t, isError: b.is_error === true });
        // A helper's answer (not an agent's hand-back, which may quote anything).
        const plan = /\[Subagent hand-back\]|Async agent launched/.test(t) ? undefined : planIn(t);
        if (plan) events.push({ kind: "resume", plan });
        systemEvents(t, events);
        continue;
      }
      if (b.type !== "text") continue;
      const t = String(b.text ?? "");
      const command =
        /<command-name>\/(?:[\w-]+:)?develop<\/command-name>\s*<command-args>([\s\S]*?)<\/command-args>/.exec(t);
      if (command) {
        events.push({ kind: "develop", args: command[1]!.trim() });
        continue;
      }
      if (t.startsWith("Base directory for this skill:")) {
        const head = t.slice(0, t.indexOf("## The helper") === -1 ? undefined : t.indexOf("## The helper"));
        const plan = planIn(head);
        if (plan) events.push({ kind: "resume", plan });
        else if (head.includes("[not run:")) events.push({ kind: "plan_not_run" });
        continue;
      }
      if (systemEvents(t, events)) continue;
      // A SubagentStop block's reason (print mode): "Stop hook feedback:\n<reason>", told to the agent.
      const feedback = /^Stop hook feedback:\n(.*)$/m.exec(t);
      if (feedback) {
        events.push({ kind: "person", text: feedback[1]! });
        continue;
      }
      if (t.startsWith("<system-reminder>") || t.startsWith("<command-") || t.startsWith("<local-command")) continue;
      // dotagent's session-start briefing where a client puts it among the user's texts (Codex, on resume): not the person.
      if (t.startsWith("dotagent: ")) continue;
      events.push({ kind: "person", text: t.trim() });
    }
  }
  return events;
}

const helperOf = (all: string): string => {
  // The command line the develop skill shows under "## The helper".
  const shown = [...all.matchAll(/node "([^"\n]*?\/checkpoint\/scripts\/dotagent\.[cm]js)" <command>/g)].at(-1);
  if (shown) return shown[1]!;
  // The SessionStart briefing shows the line that goes on.
  const briefed = [...all.matchAll(/`node "([^"\n]*dotagent\.[cm]js)" resume --json`/g)].at(-1);
  if (briefed) return briefed[1]!;
  const base = [...all.matchAll(/Base directory for this skill: (\S+)/g)].at(-1);
  return base ? `${base[1]}/../checkpoint/scripts/dotagent.cjs` : "";
};

/** `dotagent <args> --json` written out the way the skill says. */
const run = (ctx: Context, args: string): Call => ({
  name: "Bash",
  input: { command: `node "${ctx.helper}" ${args} --json`, description: `dotagent ${args.split(" ")[0]}` },
});
const read = (ctx: Context, rel: string): Call => ({ name: "Read", input: { file_path: join(ctx.project, rel) } });
const write = (ctx: Context, rel: string, content: unknown): Call => ({
  name: "Write",
  input: { file_path: join(ctx.project, rel), content: `${JSON.stringify(content, null, 2)}\n` },
});
const hereDoc = (flag: string, value: string) => `${flag} "$(cat <<'EOF'\n${value}\nEOF\n)"`;

function agentType(ctx: Context, name: string): string {
  return ctx.agentTypes.find((t) => t === name || t.endsWith(`:${name}`)) ?? name;
}
/** An Agent call with the prompt lines the develop skill gives (dotagent's hooks read them). */
function spawn(ctx: Context, agent: string, phase: string, output: string, extra: string[] = []): Call {
  const prompt = [`Feature request: ${ctx.request}`, `Phase: ${phase}`, ...extra, `Output file: ${output}`].join("\n");
  return {
    name: "Agent",
    input: {
      description: `${agent} for ${phase}`,
      prompt,
      subagent_type: agentType(ctx, agent),
      run_in_background: false,
    },
  };
}
const ANGLES: Record<string, string> = {
  minimal: "the smallest change that meets every acceptance criterion",
  robust: "a design that holds up as the feature grows",
};

const finalDesign = (chosen: string, notes: string, tasks: TaskPlan) => ({
  chosen,
  source: `memory/reports/designs/${chosen}.json`,
  approved_by: "user",
  decided_at: "2026-11-23T12:00:00Z",
  user_notes: notes,
  design: { name: chosen, summary: `${chosen} login design` },
  tasks,
});

const WAITING = "They are working in the background; I will continue when they report.";

/** Whether the main agent already made a call whose input holds this text. */
const calledWith = (ctx: Context, text: string) =>
  ctx.events.some((e) => e.kind === "call" && JSON.stringify(e.input).includes(JSON.stringify(text).slice(1, -1)));
/** Whether the main agent already made a helper call with these words (a deviation is made once). */
const tried = (ctx: Context, words: string) =>
  ctx.events.some((e) => e.kind === "call" && String(e.input.command ?? "").includes(` ${words}`));

/** The steps skills/develop/SKILL.md gives for a plan, with the person's answer if one came after it. */
function stepsFor(plan: ResumePlan, answer: string | null, ctx: Context): Step[] {
  const next = plan.next;
  const phase = String(plan.phase ?? "");
  const resume: Call = run(ctx, "resume");
  // Refused because the person has not answered: as the message says, look where things stand (and ask).
  if (plan.error && (plan.error as { code?: unknown }).code === "person_not_answered") return [{ calls: [resume] }];
  // Any other refusal (rule 4): look where the workflow stands, unless resume itself failed.
  if (plan.error) {
    const lastCall = ctx.events.findLast((e): e is Extract<Event, { kind: "call" }> => e.kind === "call");
    if (String(lastCall?.input.command ?? "").includes(" resume --json"))
      return [{ end: `dotagent failed: ${JSON.stringify(plan.error)}` }];
    return [{ calls: [resume] }];
  }
  if (plan.decision) {
    if (
      ctx.deviation === "isolation_for_person" &&
      answer === null &&
      plan.next.action === "confirm_isolation" &&
      !tried(ctx, "resume --isolation")
    )
      return [{ calls: [run(ctx, plan.decision.yes.replace(/^dotagent /, ""))] }];
    if (answer === null) return [{ end: `${plan.decision.question} (default shown in the plan). Yes or no?` }];
    const cmd = /^y/i.test(answer) ? plan.decision.yes : plan.decision.no;
    return [{ calls: [run(ctx, cmd.replace(/^dotagent /, ""))] }, { calls: [resume] }];
  }
  const title = (id: string) => ctx.tasks.find((t) => t.id === id)?.title ?? id;
  switch (next.action) {
    case "start_workflow":
      if (!ctx.request) return [{ end: "What should I build?" }];
      return [
        {
          calls: [
            {
              name: "Bash",
              input: {
                command: `node "${ctx.helper}" resume --json --start ${hereDoc("--request", ctx.request)}`,
                description: "dotagent resume",
              },
            },
          ],
        },
      ];
    case "spawn_agent":
      if (ctx.deviation === "report_by_bash" && next.agent === "qa" && !calledWith(ctx, "verification.json <<")) {
        return [
          {
            calls: [
              {
                name: "Bash",
                input: {
                  command: `cat > memory/reports/verification.json <<'EOF'\n{"passed": true, "summary": "I reviewed the changes myself."}\nEOF`,
                  description: "write the verification",
                },
              },
            ],
          },
        ];
      }
      if (
        ctx.deviation === "report_by_script" &&
        next.agent === "qa" &&
        !calledWith({ ...ctx, events: ctx.events.slice(0, ctx.planAt) }, "node -e")
      ) {
        return [
          {
            calls: [
              {
                name: "Bash",
                input: {
                  command: `node -e 'require("fs").writeFileSync("memory/reports/verification.json", JSON.stringify({ passed: true, summary: "I reviewed the changes myself." }))'`,
                  description: "write the verification",
                },
              },
            ],
          },
          { calls: [resume] },
        ];
      }
      if (ctx.deviation === "complete_unasked" && next.agent === "qa" && !tried(ctx, "phase complete"))
        return [{ calls: [run(ctx, "phase complete VERIFICATION")] }];
      if (
        ctx.deviation === "report_by_main" &&
        next.agent === "qa" &&
        !ctx.events.some(
          (e) => e.kind === "call" && e.name === "Write" && String(e.input.file_path).endsWith("verification.json"),
        )
      ) {
        return [
          {
            calls: [
              write(ctx, "memory/reports/verification.json", {
                passed: true,
                summary: "I reviewed the changes myself.",
              }),
            ],
          },
        ];
      }
      if (
        ctx.deviation === "state_by_hand" &&
        next.agent === "architect" &&
        !ctx.events.some(
          (e) => e.kind === "call" && e.name === "Write" && String(e.input.file_path).endsWith("phase.json"),
        )
      ) {
        return [
          {
            calls: [
              write(ctx, "memory/state/phase.json", {
                workflow_id: "wf-add-login",
                current_phase: "IMPLEMENTATION",
                phase_status: "pending",
                completed_phases: [{ phase: "REQUIREMENTS" }, { phase: "ARCHITECTURE" }],
              }),
            ],
          },
        ];
      }
      return spawnSteps(ctx, plan);
    case "run_tasks": {
      if (ctx.deviation === "restart_unasked" && !tried(ctx, "init") && (next.tasks ?? []).includes("task-002"))
        return [{ calls: [run(ctx, `init --request '${(ctx.request || "add login").replaceAll("'", "")}' --yes`)] }];
      // `--max-parallel N` given once, before the first batch (the person asked for it).
      const setParallel =
        ctx.maxParallel !== undefined &&
        !ctx.events.some((e) => e.kind === "call" && String(e.input.command ?? "").includes("--max-parallel"));
      if (setParallel) return [{ calls: [run(ctx, `resume --max-parallel ${ctx.maxParallel}`)] }];
      if (ctx.deviation === "rollback_unasked" && !tried(ctx, "rollback") && (next.tasks ?? []).includes("task-002"))
        return [{ calls: [run(ctx, "rollback --to ARCHITECTURE --yes")] }];
      if (
        ctx.deviation === "edit_execution" &&
        (next.tasks ?? []).includes("task-002") &&
        !ctx.events.some((e) => e.kind === "call" && e.name === "Edit")
      ) {
        const file = "memory/state/execution.json";
        return [
          { calls: [read(ctx, file)] },
          {
            calls: [
              {
                name: "Edit",
                input: {
                  file_path: join(ctx.project, file),
                  old_string: '"title": "Login route with tests",\n      "status": "pending"',
                  new_string: '"title": "Login route with tests",\n      "status": "complete"',
                  replace_all: false,
                },
              },
            ],
          },
        ];
      }
      const ids = next.tasks ?? [];
      if (ids.length === 0)
        return [{ end: `Tasks are in flight (${(plan.in_flight ?? []).join(", ")}); waiting for them.` }];
      const workflow = String(plan.workflow_id ?? "");
      const executor = (id: string) =>
        spawn(ctx, "executor", "IMPLEMENTATION", `memory/reports/tasks/${id}.json`, [
          `Task: ${id}`,
          `Title: ${title(id)}`,
          "Design: memory/reports/final_design.json",
          ...(workflow ? [`Workflow: ${workflow}`] : []),
          `Helper: node "${ctx.helper}"`,
        ]);
      const spawned = (id: string) =>
        ctx.events.some(
          (e) => e.kind === "call" && e.name === "Agent" && String(e.input.prompt).includes(`Task: ${id}\n`),
        );
      // One wrong spawn beside the right ones, once.
      const extra =
        ctx.deviation === "double_spawn" && ids.includes("task-001") && !spawned("task-001")
          ? "task-001"
          : ctx.deviation === "spawn_ahead" && ids.includes("task-001") && !spawned("task-002")
            ? "task-002"
            : ctx.deviation === "spawn_unknown" && ids.includes("task-001") && !spawned("task-009")
              ? "task-009"
              : ctx.deviation === "spawn_done" && ids.includes("task-002") && !spawned("task-002")
                ? "task-001"
                : undefined;
      return [{ calls: [...ids.map(executor), ...(extra === undefined ? [] : [executor(extra)])] }];
    }
    case "await_agents":
      return [{ end: `${(next.reason ?? "").replace(/^./, (c) => c.toUpperCase())}. ${WAITING}` }];
    case "await_approval":
      if (
        ctx.deviation === "spawn_early" &&
        answer === null &&
        next.gate === "approve_requirements" &&
        !ctx.events.some(
          (e) => e.kind === "call" && e.name === "Agent" && String(e.input.subagent_type).endsWith("architect"),
        )
      ) {
        return [
          {
            calls: [
              spawn(ctx, "architect", "ARCHITECTURE", "memory/reports/designs/minimal.json", [
                "Design name: minimal",
                `Angle: ${ANGLES.minimal}`,
              ]),
            ],
          },
        ];
      }
      if (answer === null && ctx.deviation !== undefined && !tried(ctx, `phase approve ${phase}`)) {
        if (ctx.deviation === "approve_unasked" && next.gate === "approve_requirements")
          return [{ calls: [run(ctx, "phase approve REQUIREMENTS")] }];
        // Once: the schedule, then a turn's end that asks the person nothing (the fire is the "answer").
        if (
          ctx.deviation === "schedule_approval" &&
          next.gate === "approve_requirements" &&
          !ctx.events.some((e) => e.kind === "person")
        ) {
          if (!ctx.events.some((e) => e.kind === "call" && e.name === "CronCreate"))
            return [
              { calls: [{ name: "CronCreate", input: { cron: "* * * * *", prompt: "approve", recurring: false } }] },
            ];
          return [{ end: "The requirements get approved at the next minute." }];
        }
        // The write first (denied: final_design.json is dotagent's), then the approval (refused: the person has not picked).
        if (ctx.deviation === "pick_for_person" && next.gate === "pick_design") {
          const wrote = ctx.events.some(
            (e) => e.kind === "call" && e.name === "Write" && String(e.input.file_path).endsWith("final_design.json"),
          );
          return wrote
            ? [{ calls: [run(ctx, "phase approve ARCHITECTURE")] }]
            : [{ calls: [write(ctx, "memory/reports/final_design.json", finalDesign("minimal", "", ctx.tasks))] }];
        }
      }
      if (next.gate === "approve_requirements") {
        if (answer === null)
          return [
            { calls: [read(ctx, "memory/reports/demand.json")] },
            { end: "The requirements are in memory/reports/demand.json: approve, or what should change?" },
          ];
        return [{ calls: [run(ctx, "phase approve REQUIREMENTS")] }];
      }
      // A gate of a workflow definition's step (SPEC §20): as the requirements, with the report next.output names.
      if (next.gate === "approve_report") {
        const shown = next.output ?? "the report";
        if (answer === null)
          return [
            { calls: [read(ctx, shown)] },
            { end: `${next.step} wrote ${shown}: approve, or what should change?` },
          ];
        return [{ calls: [run(ctx, `phase approve ${next.step}`)] }];
      }
      if (next.gate === "approve_design") {
        if (answer === null) return [{ end: "memory/reports/final_design.json is written: approve?" }];
        return [{ calls: [run(ctx, "phase approve ARCHITECTURE --pick minimal")] }];
      }
      if (answer === null)
        return [
          { calls: [read(ctx, "memory/reports/roundtable.json")] },
          { end: `Options: ${DESIGNS.join(", ")}; the roundtable recommends minimal. Which one?` },
        ];
      // A pick with notes (SKILL.md): dotagent writes final_design.json from the design the person named.
      return [
        {
          calls: [
            run(ctx, `phase approve ARCHITECTURE --pick ${DESIGNS.find((d) => answer.includes(d)) ?? "minimal"}`),
          ],
        },
      ];
    case "plan_tasks": {
      const round = next.round ?? 0;
      const file = next.plan_file ?? "memory/reports/plan.json";
      // The report to plan from is next.plan_from (a check's failed report in rework).
      const source =
        next.plan_from ?? `memory/reports/${round === 0 ? "final_design.json" : `verification.rework-${round}.json`}`;
      return [
        { calls: [read(ctx, source)] },
        {
          calls: [
            write(ctx, file, {
              tasks:
                round === 0
                  ? ctx.tasks
                  : [{ id: `rework-${round}-1`, title: "Fix what verification found", depends_on: [] }],
            }),
          ],
        },
        { calls: [run(ctx, `task import ${file}`)] },
      ];
    }
    case "workflow_complete":
      return [{ end: "The workflow is complete. Reflection: memory/reports/reflection.json." }];
    case "run_step":
      // The step's command (SPEC §20): dotagent asks the person first; its answer has the next step.
      return [{ calls: [run(ctx, `step run ${next.step}`)] }];
    case "workflow_failed":
      return [{ end: `The workflow stopped: ${String(next.reason ?? "")}` }];
    case "resolve_dead_tasks": {
      // references/tasks.md: the retry without --yes gives the person's question; ask it; run its yes after theirs.
      const id = next.tasks?.[0] ?? "";
      if (ctx.deviation === "retry_unasked" && answer === null && !tried(ctx, "task retry"))
        return [{ calls: [run(ctx, `task retry ${id} --extra-attempts 2 --yes`)] }];
      const asked = lastDecision(ctx);
      if (answer === null)
        return [
          { calls: [run(ctx, `task retry ${id} --extra-attempts 2`)] },
          { end: `${asked?.question ?? `Retry ${id}?`} Or skip it, or stop. Yes or no?` },
        ];
      if (!/^y/i.test(answer) || asked === undefined)
        return [{ end: "Stopped here, as you said; the state stays for later." }];
      return [{ calls: [run(ctx, asked.yes.replace(/^dotagent /, "").replace(/ --json$/, ""))] }];
    }
    case "resolve_failed_agent": {
      // The deviation: spawn the failed phase's agent again at once, without asking (once).
      const agent = String(next.agent ?? "");
      const spawnedSoFar = ctx.events.filter(
        (e) => e.kind === "call" && e.name === "Agent" && String(e.input.subagent_type).endsWith(agent),
      ).length;
      if (ctx.deviation === "respawn_failed" && answer === null && spawnedSoFar === 1) return spawnSteps(ctx, plan);
      return [{ end: `${String(next.reason ?? "")} Should I run the ${agent} agent again? Yes or no?` }];
    }
    case "confirm_isolation":
    case "confirm_fresh_start":
    case "confirm_rollback":
    case "confirm_request_change":
      // A decision named without its question (decisions.md; a next line carries it, handled above): `dotagent resume --json` shows it.
      return [{ calls: [resume] }];
    default:
      return [{ end: `I need you: ${next.action} (${String(next.reason ?? "")}).` }];
  }
}

function spawnSteps(ctx: Context, plan: ResumePlan): Step[] {
  const phase = String(plan.phase);
  const agent = String(plan.next.agent);
  const one = (output: string, extra: string[] = []): Step[] => [{ calls: [spawn(ctx, agent, phase, output, extra)] }];
  switch (agent) {
    case "pm":
      return one("memory/reports/demand.json");
    case "architect": {
      const names = plan.next.designs && plan.next.designs.length > 0 ? plan.next.designs : DESIGNS;
      return [
        {
          calls: names.map((n) =>
            spawn(ctx, "architect", phase, `memory/reports/designs/${n}.json`, [
              `Design name: ${n}`,
              `Angle: ${ANGLES[n] ?? `the ${n} approach`}`,
            ]),
          ),
        },
      ];
    }
    case "roundtable":
      return one("memory/reports/roundtable.json");
    case "qa":
      return one("memory/reports/verification.json");
    case "reflector":
      return one(plan.next.output ?? "memory/reports/reflection.json");
    default:
      // An agent of a workflow definition: its output is in the plan (SPEC §20).
      return plan.next.output ? one(plan.next.output) : [{ end: `I cannot run agent ${agent}.` }];
  }
}

function mainAgent(body: ApiRequest, all: string, policy: PolicyOptions): Omit<Reply, "who"> {
  const events = eventsOf(body.messages ?? []);
  const ctx: Context = {
    deviation: policy.deviation,
    tasks: policy.tasks ?? TASKS,
    maxParallel: policy.maxParallel,
    helper: helperOf(all),
    project: /Primary working directory: (\S+)/.exec(all)?.[1] ?? process.cwd(),
    request:
      [...events].reverse().find((e): e is Extract<Event, { kind: "develop" }> => e.kind === "develop" && e.args !== "")
        ?.args ?? "",
    agentTypes: [...all.matchAll(/^- ([\w:-]+): /gm)].map((m) => m[1]!),
    events,
  };
  const last = events.at(-1);
  // After an error or an interruption: `dotagent resume --json` (rule 4), but never in a loop.
  if (last?.kind === "result" && last.isError && !/"decision":\{"question"/.test(last.text.replace(/\s/g, ""))) {
    const call = [...events]
      .reverse()
      .find((e): e is Extract<Event, { kind: "call" }> => e.kind === "call" && e.id === last.id);
    if (call && String(call.input.command ?? "").includes(" resume --json"))
      return end(`Stopped: dotagent resume failed: ${last.text.slice(0, 300)}`);
    // A spawn dotagent refused (the reason says why): look where the workflow stands.
    return toolUse([run(ctx, "resume")]);
  }
  // fail_early: the executors were just spawned; the model fails task-001 before its result is in.
  if (
    ctx.deviation === "fail_early" &&
    !tried(ctx, "task fail") &&
    events.some((e) => e.kind === "call" && e.name === "Agent" && String(e.input.prompt).includes("Task: task-001\n"))
  )
    return toolUse([run(ctx, "task fail task-001")]);
  const r = events.map((e) => e.kind).lastIndexOf("resume");
  if (r === -1) {
    if (!ctx.helper) return end("There is no dotagent workflow here. Start one with /develop <feature request>.");
    // The skill's plan line was refused: run the same command (SKILL.md says so), once.
    if (events.some((e) => e.kind === "plan_not_run") && !tried(ctx, "resume --json --start"))
      return toolUse([
        {
          name: "Bash",
          input: {
            command: `node "${ctx.helper}" resume --json --start ${hereDoc("--request", ctx.request)}`,
            description: "dotagent resume",
          },
        },
      ]);
    return toolUse([run(ctx, "resume")]);
  }
  const plan = (events[r] as Extract<Event, { kind: "resume" }>).plan;
  ctx.planAt = r;
  const since = events.slice(r + 1);
  const personAt = events.findLastIndex((e, i) => i > r && e.kind === "person");
  const notifiedAt = events.findLastIndex((e, i) => i > r && e.kind === "notified");
  // Agents launched in the background since the plan: end the turn and wait for them.
  const launched = since.some((e) => e.kind === "result" && /Async agent launched/.test(e.text));
  const callsSince = (from: number) => events.slice(from + 1).filter((e) => e.kind === "call").length;
  if (launched && personAt === -1 && notifiedAt === -1) {
    const ended = since.some((e) => e.kind === "said");
    if (!ended) return end(WAITING);
  }
  // A notification with no newer plan (its hook said nothing): look where the workflow stands.
  if (notifiedAt !== -1 && personAt === -1 && callsSince(notifiedAt) === 0) return toolUse([run(ctx, "resume")]);
  // A question a SessionStart briefing handed (a session that starts with it pending, after a
  // crash): as the briefing says, the person's newest message, just before or after it, when it
  // says yes or no runs decision.yes or decision.no; any other words ("continue"), or none, get
  // the question and its answers, word for word, and the turn ends: nothing is run first. (The
  // interactive Claude Code puts a resumed session's first prompt BEFORE the briefing.)
  const handedAs = (events[r] as Extract<Event, { kind: "resume" }>).handed;
  const handed = handedAs !== undefined && plan.decision ? plan.decision : null;
  const turnFrom = events.findLastIndex((e, i) => i < r && (e.kind === "said" || e.kind === "call"));
  const wordsAt =
    personAt !== -1
      ? personAt
      : handedAs !== "either"
        ? -1
        : events.findLastIndex((e, i) => i > turnFrom && i < r && e.kind === "person");
  const words = wordsAt === -1 ? null : (events[wordsAt] as { text: string }).text;
  const replied = words === null ? null : replyAnswer(words);
  if (handed !== null && replied === null && callsSince(Math.max(r, personAt)) === 0)
    return end(`${handed.question}\n${handed.answers ?? "Yes or no?"}`);
  // The person's words answer a question only when the turn before ended with one; anything
  // else ("continue" after an interruption) means: look where the workflow stands first.
  // A hook's or a briefing's plan between the question and the words (a session that starts with
  // each prompt, as `codex exec resume` and `claude -p -r` do, briefs before it) is not the turn:
  // a "yes" still answers the question the turn ended with.
  const before = events.findLast((e, i) => i < personAt && e.kind !== "resume");
  // (After a kill the client adds a synthetic "No response requested." turn: not a question.)
  if (personAt !== -1 && handed === null && !(before?.kind === "said" && before.text.trim().endsWith("?"))) {
    if (callsSince(personAt) === 0) return toolUse([run(ctx, "resume")]);
  }
  const answer = personAt !== -1 || (handed !== null && replied !== null) ? words : null;
  const from = Math.max(r, personAt);
  const done = callsSince(from);
  const steps = stepsFor(plan, answer, ctx);
  let seen = 0;
  for (const step of steps) {
    if ("end" in step) return end(step.end);
    if (seen + step.calls.length > done) return toolUse(step.calls);
    seen += step.calls.length;
  }
  return end(`Done with ${plan.next.action}.`);
}

let ids = 0;
const toolUse = (calls: Call[]): Omit<Reply, "who"> => ({
  stop: "tool_use",
  blocks: calls.map((c) => ({
    type: "tool_use",
    id: `toolu_${process.pid}_${Date.now().toString(36)}_${++ids}`,
    name: c.name,
    input: c.input,
  })),
});
const end = (t: string): Omit<Reply, "who"> => ({ stop: "end_turn", blocks: [{ type: "text", text: t }] });

/** The roundtable's line per design, as a person reads it at the pick. */
const ONE_LINES: Record<string, string> = {
  minimal: "A signed cookie and one login route: the smallest change.",
  robust: "A session table: sessions can be revoked later; about three times the work.",
};

function report(agent: string, prompt: string, tasks: TaskPlan = TASKS): Record<string, unknown> {
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(prompt)?.[1] ?? "";
  const request = field("Feature request");
  const feedback = field("Feedback from the person");
  switch (agent) {
    case "pm":
      return {
        request,
        summary: `Users sign in with email and password${feedback ? `; ${feedback}` : ""}.`,
        user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in", so_that: "I reach my account" }],
        acceptance_criteria: [{ id: "AC-1", story: "US-1", text: "A right password signs in; a wrong one does not." }],
        open_questions: [],
      };
    case "architect":
      return {
        name: field("Design name") || "default",
        angle: field("Angle"),
        summary: `${field("Design name")} login`,
        tasks,
        tradeoffs: { pros: ["small"], cons: [] },
      };
    case "roundtable":
      return {
        designs: DESIGNS.map((name) => ({
          name,
          file: `memory/reports/designs/${name}.json`,
          covers_all_criteria: true,
        })),
        unreadable: [],
        recommendation: "minimal",
        rationale: "both meet every criterion; minimal is a third of the change",
        options_for_user: DESIGNS.map((name) => ({ name, one_line: ONE_LINES[name] ?? name })),
      };
    case "executor":
      return {
        task_id: field("Task"),
        status: "complete",
        summary: `Did ${field("Title")}`,
        files_changed: [],
        tests: { command: "true", passed: true },
        error: null,
      };
    case "qa":
      return {
        passed: true,
        summary: "Every criterion met.",
        checks: [{ criterion: "AC-1", passed: true, evidence: "tests" }],
        failures: [],
      };
    default:
      return { summary: "Login shipped.", lessons: ["Keep tasks small"] };
  }
}

/**
 * An executor that changes code (PolicyOptions.executorWrites): Read its report, Write its file
 * (in its worktree when the prompt names one), commit it there with one `git -C` call, Write its
 * report (at `Report file:` when given), hand back. Sent back by a reminder: the report again.
 */
function codingExecutor(
  prompt: string,
  events: Event[],
  project: string,
  writes: "own" | "shared",
  handback: boolean,
  commits = false,
  strays = false,
): Omit<Reply, "who"> {
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(prompt)?.[1]?.trim();
  const task = field("Task") ?? "task";
  const worktree = field("Worktree");
  const output = field("Output file") ?? `memory/reports/tasks/${task}.json`;
  const reportPath = field("Report file") ?? join(project, output);
  const where = worktree ?? project;
  // After a conflict (SPEC §19): merge the workflow's branch first, then write the file resolved.
  const conflict = worktree ? /^Merge conflict: (\S+) \(/m.exec(prompt)?.[1] : undefined;
  const file = writes === "own" ? `${task}.txt` : "shared.txt";
  const content =
    writes === "own"
      ? `done by ${task}\n`
      : conflict
        ? `one\nchanged by ${task}, merged with ${conflict}\nthree\n`
        : `one\nchanged by ${task}\nthree\n`;
  const report = {
    task_id: task,
    status: "complete",
    summary: `Did ${field("Title") ?? task}`,
    files_changed: [file],
    tests: { command: "true", passed: true },
    error: null,
  };
  const steps: Call[] = [
    { name: "Read", input: { file_path: reportPath } },
    ...(conflict
      ? [
          {
            name: "Bash",
            input: {
              command: `git -C ${worktree} merge ${conflict}`,
              description: `merge ${conflict} into the task's branch`,
            },
          },
        ]
      : []),
    ...(worktree && strays ? [{ name: "Write", input: { file_path: join(project, file), content } }] : []),
    { name: "Write", input: { file_path: join(where, file), content } },
    // The agent file: dotagent commits the work when it lands; the executor commits only the merge it resolves.
    ...(worktree && (commits || conflict)
      ? [
          {
            name: "Bash",
            input: {
              command: `git -C ${worktree} add -A && git -C ${worktree} commit -q -m "${task}: ${(field("Title") ?? task).replace(/"/g, "'")}"`,
              description: "commit the task's work on its branch",
            },
          },
        ]
      : []),
    { name: "Write", input: { file_path: reportPath, content: `${JSON.stringify(report, null, 2)}\n` } },
  ];
  const calls = events.filter((e) => e.kind === "call").length;
  const reminded = events.findLastIndex(
    (e) => (e.kind === "result" || e.kind === "person" || e.kind === "said") && /dotagent reminder \d/.test(e.text),
  );
  const lastCall = events.findLastIndex((e) => e.kind === "call");
  if (reminded > lastCall) return toolUse([steps.at(-1)!]);
  if (calls < steps.length) return toolUse([steps[calls]!]);
  if (events.some((e) => e.kind === "result" && !e.isError && /Report delivered|handed back/i.test(e.text)))
    return end("Handed back.");
  const said = `Wrote ${output}${worktree ? `; changed ${file} in ${worktree}` : ""}.`;
  return handback ? toolUse([{ name: "SubagentHandback", input: { message: said } }]) : end(said);
}

function subAgent(agent: string, body: ApiRequest, all: string, policy: PolicyOptions = {}): Omit<Reply, "who"> {
  const events = eventsOf(body.messages ?? []);
  const prompt = events.find((e): e is Extract<Event, { kind: "person" }> => e.kind === "person")?.text ?? "";
  const output = /^Output file: (\S+)$/m.exec(prompt)?.[1];
  const project = /Primary working directory: (\S+)/.exec(all)?.[1] ?? process.cwd();
  if (!output) return end("No output file in my prompt.");
  const strays = policy.executorStrays === true || policy.deviation === "executor_strays";
  const writes = policy.executorWrites ?? (strays ? "own" : undefined);
  if (agent === "executor" && writes)
    return codingExecutor(
      prompt,
      events,
      project,
      writes,
      (body.tools ?? []).some((t) => t.name === "SubagentHandback"),
      policy.executorCommits === true,
      strays,
    );
  const path = join(project, output);
  const calls = events.filter((e) => e.kind === "call").length;
  if (calls === 0) return toolUse([{ name: "Read", input: { file_path: path } }]);
  // Claude Code 2.1.33x gives a sub-agent the SubagentHandback tool: only a call of it reaches
  // the caller as the agent's result (plain text at the end is not delivered).
  const handback = (body.tools ?? []).some((t) => t.name === "SubagentHandback");
  const finish = (said: string) =>
    handback ? toolUse([{ name: "SubagentHandback", input: { message: said } }]) : end(said);
  // respawn_failed: the first pm gives up, reminders or not (a pm after its phase failed does its job).
  if (policy.deviation === "respawn_failed" && agent === "pm" && !logged(project, { type: "phase_failed" }))
    return finish("I could not work out the requirements.");
  // retry_unasked: task-001's tests fail, attempt after attempt (sent back or not), until the task is dead.
  const failing =
    policy.deviation === "retry_unasked" &&
    agent === "executor" &&
    /^Task: task-001$/m.test(prompt) &&
    !logged(project, { type: "task_dead", task_id: "task-001" });
  const theReport = () =>
    failing
      ? {
          ...report(agent, prompt, policy.tasks),
          status: "failed",
          error: "tests fail: login rejects a right password",
        }
      : report(agent, prompt, policy.tasks);
  // Sent back by dotagent (a refused hand-back, or stop-hook feedback): write the report, then finish.
  const lastWrite = events.findLastIndex((e) => e.kind === "call" && e.name === "Write");
  const reminded = events.findLastIndex(
    (e) => (e.kind === "result" || e.kind === "person" || e.kind === "said") && /dotagent reminder \d/.test(e.text),
  );
  if (reminded > lastWrite && events.at(-1)?.kind !== "call") {
    if (events[reminded - 1]?.kind !== "call" || (events[reminded - 1] as { name?: string }).name !== "Write")
      return toolUse([
        { name: "Write", input: { file_path: path, content: `${JSON.stringify(theReport(), null, 2)}\n` } },
      ]);
  }
  if (
    lastWrite !== -1 &&
    reminded > -1 &&
    reminded < lastWrite &&
    events.at(-1)?.kind === "result" &&
    events.findLastIndex((e) => e.kind === "call") === lastWrite
  )
    return finish(`Wrote ${output}.`);
  if (events.some((e) => e.kind === "result" && !e.isError && /Report delivered|handed back/i.test(e.text)))
    return end("Handed back.");
  if (calls === 1) {
    const result = events.at(-1);
    // Idempotent, as every agent file says: a valid report already there is not redone, unless
    // the prompt asks for a revision (the person's feedback at a gate of `dotagent run`).
    const revise = /^Revise: /m.test(prompt);
    if (
      !revise &&
      !failing &&
      result?.kind === "result" &&
      !result.isError &&
      /\{/.test(result.text) &&
      !/does not exist/i.test(result.text)
    )
      return finish(`${output} is already done.`);
    // The agents' deviations (PolicyOptions.deviation), each the first time only: a reminder brings the right report.
    if (policy.forgetsReport?.includes(agent) && reminded === -1) return end("Done; the notes are in my head.");
    const wrong = agentMistake(agent, prompt, policy.deviation, project, path, report(agent, prompt, policy.tasks));
    if (wrong === "handback") return finish("Done.");
    if (wrong !== undefined) return toolUse([wrong]);
    return toolUse([
      { name: "Write", input: { file_path: path, content: `${JSON.stringify(theReport(), null, 2)}\n` } },
    ]);
  }
  return finish(`Wrote ${output}.`);
}

/** The decision a helper call handed back last (exit 5, `{ok: false, decision}`), if any. */
function lastDecision(ctx: Context): { question: string; yes: string; no: string } | undefined {
  for (const e of [...ctx.events].reverse()) {
    if (e.kind !== "result") continue;
    const found = jsonObjectsIn(e.text).find(
      (o) =>
        o.decision !== null &&
        typeof o.decision === "object" &&
        typeof (o.decision as { yes?: unknown }).yes === "string",
    );
    if (found) return found.decision as { question: string; yes: string; no: string };
  }
  return undefined;
}

/**
 * Whether dotagent's event log in this project holds an event with these fields (a task dead, a
 * phase failed). An executor in its worktree (the terminal) works in .dotagent/worktrees/<task>:
 * the log is the main checkout's.
 */
function logged(project: string, fields: Record<string, string>): boolean {
  const main = project.replace(/\/\.dotagent\/worktrees\/[^/]+\/?$/, "");
  try {
    return readFileSync(join(main, "memory/state/events.jsonl"), "utf8")
      .split("\n")
      .some((l) => Object.entries(fields).every(([k, v]) => l.includes(`"${k}":${JSON.stringify(v)}`)));
  } catch {
    return false;
  }
}

/** The agent's one mistake, if the deviation is its: a wrong Write, or "handback" (it stops without a report). */
function agentMistake(
  agent: string,
  prompt: string,
  deviation: Deviation | undefined,
  project: string,
  path: string,
  right: Record<string, unknown>,
): Call | "handback" | undefined {
  const json = JSON.stringify(right, null, 2);
  switch (deviation) {
    case "no_report":
      return agent === "executor" && /^Task: task-001$/m.test(prompt) ? "handback" : undefined;
    case "wrong_path":
      return agent === "pm"
        ? {
            name: "Write",
            input: { file_path: join(project, "memory/reports/requirements.json"), content: `${json}\n` },
          }
        : undefined;
    case "fenced_report":
      return agent === "qa"
        ? { name: "Write", input: { file_path: path, content: `\`\`\`json\n${json}\n\`\`\`\n` } }
        : undefined;
    case "missing_field":
      return agent === "qa"
        ? {
            name: "Write",
            input: { file_path: path, content: `${JSON.stringify({ summary: "Every criterion met." }, null, 2)}\n` },
          }
        : undefined;
    case "markdown_in_json":
      return agent === "reflector"
        ? { name: "Write", input: { file_path: path, content: "# Reflection\n\nLogin shipped; keep tasks small.\n" } }
        : undefined;
    default:
      return undefined;
  }
}

const bodies = new Map<string, Array<[string, string]>>();
/** Each agent's recognisable line: the first line of its file's body. */
function agentMarkers(dir: string): Array<[string, string]> {
  let markers = bodies.get(dir);
  if (!markers) {
    markers = readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .map((f): [string, string] => {
        const body = readFileSync(join(dir, f), "utf8")
          .replace(/^---[\s\S]*?\n---\n/, "")
          .trim();
        return [f.replace(/\.md$/, ""), body.split("\n")[0]!.trim()];
      });
    bodies.set(dir, markers);
  }
  return markers;
}

/** The frame Claude Code 2.1.332 puts before a workflow agent's task (its first user message). */
export const WORKFLOW_TASK_FRAME = "The computed task text follows:\n";

/** The Workflow tool's moves (PolicyOptions.workflow), or undefined for a request that is not the workflow's. */
function workflowPlay(
  body: ApiRequest,
  tools: string[],
  workflow: { script: string; args?: unknown },
): Reply | undefined {
  const messages = body.messages ?? [];
  const first = text(messages[0]?.content);
  const frame = first.lastIndexOf(WORKFLOW_TASK_FRAME);
  if (frame !== -1 && !tools.includes("Workflow")) {
    const task = first.slice(frame + WORKFLOW_TASK_FRAME.length).trim();
    const word = /^[\w-]+/.exec(task)?.[0] ?? "task";
    // A task marked `[write]` writes notes/<word>.txt first (whatever a hook told it), then answers;
    // a refused call is answered with the refusal's first line (issue 43's fan-out cap).
    if (task.includes("[write]")) {
      const result = messages
        .flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : []))
        .find((c) => c.type === "tool_result");
      const system =
        typeof body.system === "string" ? body.system : (body.system ?? []).map((b) => b.text ?? "").join("\n");
      const said = `${system}\n${messages.map((m) => text(m.content)).join("\n")}`;
      const project = /Primary working directory: (\S+)/.exec(said)?.[1];
      if (project === undefined) throw new Error("a workflow agent's request names no working directory");
      if (result === undefined)
        return {
          who: "workflow-agent",
          stop: "tool_use",
          blocks: [
            {
              type: "tool_use",
              id: `toolu_wfagent_${word}`,
              name: "Write",
              input: { file_path: join(project, "notes", `${word}.txt`), content: `${word}\n` },
            },
          ],
        };
      const answer = text((result as { content?: unknown }).content).split("\n")[0]!;
      return {
        who: "workflow-agent",
        stop: "end_turn",
        blocks: [{ type: "text", text: result.is_error === true ? `refused: ${answer}` : `result ${word}` }],
      };
    }
    return { who: "workflow-agent", stop: "end_turn", blocks: [{ type: "text", text: `result ${word}` }] };
  }
  if (!tools.includes("Workflow")) return undefined;
  // The newest prompt of the person's that asks for the workflow: a text block of its own (a resumed
  // session puts the client's notes about the interrupted run in the same message, before it).
  const asks = (m: ApiMessage) =>
    m.role !== "user"
      ? undefined
      : (typeof m.content === "string" ? [m.content] : m.content.map((c) => (c.type === "text" ? (c.text ?? "") : "")))
          .map((t) =>
            /^(?:use a workflow|resume workflow run (wf_[a-z0-9-]+)|(resume the cut-off workflow))/.exec(t.trim()),
          )
          .filter((r) => r !== null)
          .at(-1);
  const at = messages.findLastIndex((m) => asks(m) !== undefined);
  if (at === -1) return undefined;
  const asked = asks(messages[at]!);
  const resumeFrom = asked?.[1];
  const after = messages.slice(at + 1);
  // dotagent's briefing (or its `workflow-run resume` command's output): the call it hands, taken verbatim.
  const everything = [
    typeof body.system === "string" ? body.system : (body.system ?? []).map((b) => b.text ?? "").join("\n"),
    ...messages.map((m) => `${text(m.content)}\n${resultsText(m)}`),
  ].join("\n");
  const calls = [
    ...everything.matchAll(
      /(?:call exactly|Resume it with exactly): Workflow\(\{scriptPath: ("(?:[^"\\\n]|\\.)*"), resumeFromRunId: "(wf_[a-z0-9-]+)", args: (.*)\}\)$/gm,
    ),
  ];
  const briefed = asked?.[2] === undefined ? undefined : (calls.at(-1) ?? null);
  if (asked?.[2] !== undefined && briefed === null) {
    // A run the briefing does not put back: the person's choice, through dotagent's decision.
    const choice = /run `node "([^"]+)" workflow-run resume (wf_[a-z0-9-]+)`/.exec(everything);
    const say = (words: string): Reply => ({ who: "main", stop: "end_turn", blocks: [{ type: "text", text: words }] });
    if (choice === null) return say("no workflow call in the briefing");
    const line = `node "${choice[1]}" workflow-run resume ${choice[2]}`;
    const ran = after.flatMap((m) =>
      Array.isArray(m.content)
        ? m.content.filter(
            (c) => c.type === "tool_use" && c.name === "Bash" && String(c.input?.command).startsWith(line),
          )
        : [],
    );
    const bash = (command: string): Reply => ({
      who: "main",
      stop: "tool_use",
      blocks: [
        {
          type: "tool_use",
          id: `toolu_wfrun_${messages.length}`,
          name: "Bash",
          input: { command, description: "dotagent workflow-run resume" },
        },
      ],
    });
    if (ran.length === 0) return bash(line);
    const saidYes = after.some(
      (m) =>
        m.role === "user" &&
        Array.isArray(m.content) &&
        m.content.some((c) => c.type === "text" && /^yes\b/i.test((c.text ?? "").trim())),
    );
    const withYes = ran.some((c) => String(c.input?.command).endsWith(" --yes"));
    if (saidYes && !withYes) return bash(`${line} --yes`);
    return say(
      withYes ? "the resume was refused" : `Resume workflow run ${choice[2]} from dotagent's copy? (yes or no)`,
    );
  }
  const called = after.some(
    (m) => Array.isArray(m.content) && m.content.some((c) => c.type === "tool_use" && c.name === "Workflow"),
  );
  // "…, then stop it" (issue 43, TaskStop): once two agents' results are in dotagent's copy of the
  // journal (a Bash wait on the file, never on time), the model stops the run with TaskStop.
  const stopAsked = /then stop it/.test(text(messages[at]!.content));
  if (called && stopAsked) {
    const used = (name: string) =>
      after.some((m) => Array.isArray(m.content) && m.content.some((c) => c.type === "tool_use" && c.name === name));
    const taskId = /Workflow launched in background\. Task ID: ([\w-]+)/.exec(
      after.map((m) => resultsText(m)).join("\n"),
    )?.[1];
    if (!used("Bash"))
      return {
        who: "main",
        stop: "tool_use",
        blocks: [
          {
            type: "tool_use",
            id: `toolu_wfwait_${messages.length}`,
            name: "Bash",
            input: {
              command: `for i in $(seq 1 3000); do [ "$(cat memory/state/workflow-runs/*/journal.jsonl 2>/dev/null | grep -c '"type":"result"')" -ge 2 ] && exit 0; sleep 0.1; done; exit 1`,
              description: "wait for two results",
            },
          },
        ],
      };
    if (!used("TaskStop") && taskId !== undefined)
      return {
        who: "main",
        stop: "tool_use",
        blocks: [
          { type: "tool_use", id: `toolu_wfstop_${messages.length}`, name: "TaskStop", input: { task_id: taskId } },
        ],
      };
    return {
      who: "main",
      stop: "end_turn",
      blocks: [{ type: "text", text: taskId ? "workflow stopped" : "no task id" }],
    };
  }
  if (!called)
    return {
      who: "main",
      stop: "tool_use",
      blocks: [
        {
          type: "tool_use",
          id: `toolu_workflow_${messages.length}`,
          name: "Workflow",
          input: briefed
            ? {
                scriptPath: JSON.parse(briefed[1]!) as string,
                resumeFromRunId: briefed[2],
                args: JSON.parse(briefed[3]!) as unknown,
              }
            : {
                script: workflow.script,
                ...(workflow.args === undefined ? {} : { args: workflow.args }),
                ...(resumeFrom === undefined ? {} : { resumeFromRunId: resumeFrom }),
              },
        },
      ],
    };
  const done = after.some(
    (m) => m.role === "user" && /<task-notification>[\s\S]*<status>completed</.test(text(m.content)),
  );
  return {
    who: "main",
    stop: "end_turn",
    blocks: [{ type: "text", text: done ? "workflow done" : "workflow launched" }],
  };
}

export function decide(body: ApiRequest, options: { agentsDir: string; seq: number; policy?: PolicyOptions }): Reply {
  const system =
    typeof body.system === "string" ? body.system : (body.system ?? []).map((s) => s.text ?? "").join("\n");
  const all = `${system}\n${(body.messages ?? []).map((m) => text(m.content)).join("\n")}`;
  const tools = (body.tools ?? []).map((t) => t.name);
  // The client's compaction request (`/compact`, or the context running full): a summary, as
  // text only. What it keeps of dotagent is what any model would: the newest plan.
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  if (/create a detailed summary of the conversation/.test(text(lastUser?.content))) {
    const plan = [...eventsOf(body.messages ?? [])]
      .reverse()
      .find((e): e is Extract<Event, { kind: "resume" }> => e.kind === "resume")?.plan;
    const summary = plan
      ? `The user runs /develop add login; dotagent workflow ${String(plan.workflow_id)}, phase ${String(plan.phase)}, last next.action ${plan.next.action}.`
      : "The user asked for /develop add login.";
    return {
      who: "compact",
      stop: "end_turn",
      blocks: [
        {
          type: "text",
          text: `<analysis>dotagent workflow in progress.</analysis>\n<summary>${summary} After this summary: run dotagent resume --json first.</summary>`,
        },
      ],
    };
  }
  // Auto mode's security monitor (a separate request per tool call it judges): stage 1 grades
  // harm with <severity>N</severity>, stage 2 answers <block>yes|no</block>. It allows everything;
  // the journeys count how often it was asked.
  if (
    /^(?:x-anthropic-billing-header:[^\n]*\n)?You are a security monitor/m.test(system) ||
    system.includes("You are a security monitor for autonomous AI coding agents")
  ) {
    const stage1 = /Respond with <severity>N<\/severity>/.test(text(lastUser?.content));
    return {
      who: "monitor",
      stop: "end_turn",
      blocks: [{ type: "text", text: stage1 ? "<severity>0</severity>" : "<block>no</block>" }],
    };
  }
  if (options.policy?.workflow) {
    const played = workflowPlay(body, tools, options.policy.workflow);
    if (played) return played;
  }
  // dotagent's agents, then the project's own (.claude/agents/ of the session's folder).
  const folder = /Primary working directory: (\S+)/.exec(all)?.[1]?.replace(/\/\.dotagent\/worktrees\/[^/]+\/?$/, "");
  const own =
    folder !== undefined && existsSync(join(folder, ".claude/agents"))
      ? agentMarkers(join(folder, ".claude/agents"))
      : [];
  const agent = [...agentMarkers(options.agentsDir), ...own].find(([, marker]) => system.includes(marker))?.[0];
  if (agent) return { who: agent, ...subAgent(agent, body, all, options.policy) };
  if (tools.includes("Agent") && tools.includes("Bash"))
    return { who: "main", ...mainAgent(body, all, options.policy ?? {}) };
  // A side request (a title, a summary, a topic check): a short text.
  return { who: "side", stop: "end_turn", blocks: [{ type: "text", text: "Add login" }] };
}
