// A scripted "agent" that drives one project through whole workflows with the built CLI, the way
// the /develop skill does: look at the state, write the report a phase agent would write, then
// run the dotagent command that records it. It decides from what is on disk, so it carries on
// whatever a killed command did or did not get done. Beside it, a model of acknowledged changes:
// everything a command reported done (exit 0) must stay on disk, whatever is killed later.
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { PHASES, type Phase } from "../../src/core/phases.js";
import { eventsOnDisk, planOnDisk, readState, sequenceProblems, type Rng } from "./helpers.js";

export interface Step {
  /** Command kind, for calibration and figures: "task add", "phase complete", "resume", … */
  readonly kind: string;
  readonly args: string[];
  /** What the model learns when the command exits 0. */
  readonly ack?: (model: AckModel) => void;
}

export interface DriverOptions {
  /** Tasks per workflow. */
  tasks: number;
  /** Failed verifications (rework rounds) per workflow before one passes. */
  reworks: number;
  workflowId: string;
  /** Verification reports already written (a project that starts later in the workflow). */
  verificationsDone?: number;
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value)}\n`);
}

export class WorkflowDriver {
  /** Tasks this agent started (start exited 0) and whose executor is still "alive". */
  private readonly owned = new Set<string>();
  private verifications = 0;
  private imports = 0;

  constructor(
    private readonly dir: string,
    private readonly rng: Rng,
    private readonly options: DriverOptions,
  ) {
    this.verifications = options.verificationsDone ?? 0;
  }

  private report(rel: string): string {
    return join(this.dir, "memory/reports", rel);
  }

  /** The agent's side after a successful command. */
  acknowledge(step: Step): void {
    if (step.kind === "task start") this.owned.add(step.args[2]!);
    if (step.kind.startsWith("resume")) this.owned.clear(); // resume resets orphans: nothing is running any more
  }

  /** After a kill nobody knows what ran: the agent starts over from resume, like a new session. */
  forgetRunning(): void {
    this.owned.clear();
  }

  /** The next command, after writing whatever report an agent would have written; "done" at the end. */
  decide(): Step | "done" {
    for (let round = 0; round < 12; round++) {
      const { phase, execution, problems } = readState(this.dir);
      if (problems.length > 0) throw new Error(`cannot drive a corrupt state: ${problems.join("; ")}`);
      if (phase === undefined) {
        return {
          kind: "init",
          args: ["init", "--request", `torture ${this.options.workflowId}`, "--workflow-id", this.options.workflowId],
          ack: (m) => m.ackWorkflow(this.options.workflowId),
        };
      }
      const plan = planOnDisk(this.dir);
      if (plan.situation === "complete") return "done";
      if (plan.situation !== "interrupted")
        throw new Error(`unexpected situation ${plan.situation}: ${plan.next.reason}`);
      const current = phase.current_phase;
      // An executor of ours is still on a task: it finishes first. (The plan counts every running
      // task as orphaned, as resume must after a crash; calling resume now would orphan our own.)
      const mine = execution?.tasks.find((t) => t.status === "running" && this.owned.has(t.id));
      if (mine !== undefined) {
        if (this.rng.chance(0.12)) {
          // The executor dies without writing its output: resume must find the task orphaned.
          this.owned.delete(mine.id);
          return { kind: "resume:task_reset", args: ["resume", "--json"] };
        }
        const ok = this.rng.chance(0.75);
        writeJson(join(this.dir, mine.output ?? `memory/reports/tasks/${mine.id}.json`), {
          task_id: mine.id,
          status: ok ? "complete" : "failed",
          ...(ok ? {} : { error: "tests fail" }),
        });
        this.owned.delete(mine.id);
        return ok
          ? { kind: "task complete", args: ["task", "complete", mine.id], ack: (m) => m.ackComplete(mine.id) }
          : { kind: "task fail", args: ["task", "fail", mine.id, "--error", "tests fail"] };
      }
      if (plan.repairs.length > 0) {
        // The state needs repairing or advancing: mostly `resume`, sometimes the explicit command.
        if (plan.repairs.every((r) => r.code === "phase_advanced") && this.rng.chance(0.5))
          return this.completePhase(current, phase.rework?.round ?? 0);
        if (current === "VERIFICATION" && plan.repairs.some((r) => r.code === "rework") && this.rng.chance(0.5)) {
          return { kind: "phase rework", args: ["phase", "rework"], ack: (m) => m.ackRework() };
        }
        // The kind names the repair, so kills are counted (and calibrated) per kind of repair.
        return {
          kind: `resume:${[...new Set(plan.repairs.map((r) => r.code))].sort().join("+")}`,
          args: ["resume", "--json"],
        };
      }
      const next = plan.next;
      if (phase.phase_status === "pending" && this.rng.chance(0.25))
        return { kind: "phase start", args: ["phase", "start", current] };
      if (phase.phase_status === "in_progress" && this.rng.chance(0.04))
        return { kind: "phase fail", args: ["phase", "fail", current, "--error", "agent crashed"] };
      if (phase.phase_status === "failed") return { kind: "phase start", args: ["phase", "start", current] };
      switch (next.action) {
        case "spawn_agent":
          switch (next.agent) {
            case "pm":
              writeJson(this.report("demand.json"), { summary: "torture", requirements: ["survive kill -9"] });
              continue;
            case "architect":
              if (next.designs !== undefined) {
                // Designs were asked for: one architect writes its design, the next may be killed.
                writeJson(this.report(`designs/${next.designs[0]}.json`), { name: next.designs[0] });
                continue;
              }
              if (phase.designs_requested === undefined && this.rng.chance(0.5))
                return { kind: "phase start", args: ["phase", "start", "ARCHITECTURE", "--designs", "a,b"] };
              writeJson(this.report("designs/a.json"), { name: "plan a" });
              continue;
            case "roundtable":
              writeJson(this.report("roundtable.json"), { winner: "a" });
              continue;
            case "qa":
              this.verifications += 1;
              writeJson(this.report("verification.json"), {
                passed: this.verifications > this.options.reworks,
                notes: `round ${this.verifications}`,
              });
              continue;
            case "reflector":
              mkdirSync(join(this.dir, "memory/reports"), { recursive: true });
              writeFileSync(this.report("reflection.md"), "# Reflection\n\nIt survived.\n");
              continue;
            case "executor":
              // A legacy rework round (execution.json without plan records): fix what
              // verification listed, then finish IMPLEMENTATION again.
              return this.completePhase("IMPLEMENTATION", phase.rework?.round ?? 0);
            default:
              throw new Error(`unexpected agent ${next.agent}`);
          }
        case "await_approval":
          if (current === "ARCHITECTURE" && !existsSync(this.report("final_design.json"))) {
            writeJson(this.report("final_design.json"), { chosen: "a" });
            continue;
          }
          return { kind: "phase approve", args: ["phase", "approve", current], ack: (m) => m.ackApproval(current) };
        case "plan_tasks": {
          // Mostly the whole plan at once, as the skill does; sometimes a task added one by one
          // first (not a plan: the import that follows must take it in).
          const ids = execution?.tasks.map((t) => t.id) ?? [];
          if (ids.length < this.options.tasks && this.rng.chance(0.25)) return this.addTask(ids, "add");
          return this.importPlan(execution?.tasks ?? [], phase.rework?.closed_at ? 0 : (phase.rework?.round ?? 0));
        }
        case "run_tasks": {
          const ids = execution?.tasks.map((t) => t.id) ?? [];
          const running = execution?.tasks.filter((t) => t.status === "running") ?? [];
          if (running.length > 0) return { kind: "resume:task_reset", args: ["resume", "--json"] }; // left by a kill
          if (ids.length < this.options.tasks && this.rng.chance(0.35)) return this.addTask(ids);
          const ready = next.tasks;
          if (ready.length > 0) {
            const id = this.rng.pick(ready);
            return { kind: "task start", args: ["task", "start", id] };
          }
          return { kind: "resume", args: ["resume", "--json"] };
        }
        case "resolve_dead_tasks":
          return { kind: "task retry", args: ["task", "retry", this.rng.pick(next.tasks), "--extra-attempts", "2"] };
        case "workflow_complete":
          return "done";
        default:
          throw new Error(`unexpected next action ${next.action}: ${next.reason}`);
      }
    }
    throw new Error("the driver went round in circles");
  }

  private completePhase(phase: Phase, round: number): Step {
    return { kind: "phase complete", args: ["phase", "complete", phase], ack: (m) => m.ackPhase(phase, round) };
  }

  /**
   * `task import` of a whole plan: every task already on disk, verbatim (skipped as identical),
   * plus new ones — round 0 up to the workflow's task count, a rework round one fix task.
   */
  private importPlan(
    existing: ReadonlyArray<{ id: string; title?: string | undefined; depends_on?: string[] | undefined }>,
    round: number,
  ): Step {
    const ids = existing.map((t) => t.id);
    const count = round === 0 ? Math.max(1, this.options.tasks - ids.length) : 1;
    const fresh: Array<{ id: string; title: string; depends_on: string[] }> = [];
    for (let k = 1; fresh.length < count; k++) {
      const id = round === 0 ? `t${ids.length + k}` : `r${round}-${k}`;
      if (ids.includes(id)) continue;
      const pool = [...ids, ...fresh.map((t) => t.id)];
      fresh.push({
        id,
        title: `planned ${id}`,
        depends_on: pool.length > 0 && this.rng.chance(0.4) ? [this.rng.pick(pool)] : [],
      });
    }
    const plan = [
      ...existing.map((t) => ({
        id: t.id,
        ...(t.title === undefined ? {} : { title: t.title }),
        depends_on: t.depends_on ?? [],
      })),
      ...fresh,
    ];
    const file = join(this.dir, `plan-${++this.imports}.json`);
    writeFileSync(file, JSON.stringify(this.rng.chance(0.5) ? plan : { tasks: plan }));
    return { kind: "task import", args: ["task", "import", file], ack: (m) => m.ackAdd(...fresh.map((t) => t.id)) };
  }

  private addTask(existing: readonly string[], how: "add" | "either" = "either"): Step {
    const fresh = (from: number) => {
      let k = from;
      while (existing.includes(`t${k}`)) k++;
      return k;
    };
    const k = fresh(existing.length + 1);
    const dependsOn = existing.length > 0 && this.rng.chance(0.4) ? [this.rng.pick(existing)] : [];
    if (how === "either" && this.rng.chance(0.2)) {
      // `task import` of two tasks, the second depending on the first.
      const k2 = fresh(k + 1);
      const file = join(this.dir, `import-${++this.imports}.json`);
      writeFileSync(
        file,
        JSON.stringify([
          { id: `t${k}`, title: "imported", depends_on: dependsOn },
          { id: `t${k2}`, depends_on: [`t${k}`] },
        ]),
      );
      return { kind: "task import", args: ["task", "import", file], ack: (m) => m.ackAdd(`t${k}`, `t${k2}`) };
    }
    return {
      kind: "task add",
      args: [
        "task",
        "add",
        `t${k}`,
        "--title",
        `task ${k}`,
        ...(dependsOn.length > 0 ? ["--depends-on", dependsOn.join(",")] : []),
      ],
      ack: (m) => m.ackAdd(`t${k}`),
    };
  }
}

/**
 * What commands reported done (exit 0), and what was seen on disk after a command succeeded.
 * Either must stay on disk: a kill may undo an unacknowledged change, never an acknowledged one.
 */
export class AckModel {
  workflowId: string | undefined;
  readonly added = new Set<string>();
  readonly completed = new Set<string>();
  readonly approvals = new Set<Phase>();
  /** Phase completions with the rework round they happened in (a rework undoes later phases). */
  readonly phases: Array<{ phase: Phase; round: number }> = [];
  private readonly seenTasks = new Set<string>();
  private readonly seenComplete = new Set<string>();
  private seenProgress = 0;
  private seenRound = 0;

  ackWorkflow(id: string): void {
    this.workflowId = id;
  }
  ackAdd(...ids: string[]): void {
    for (const id of ids) this.added.add(id);
  }
  ackComplete(id: string): void {
    this.completed.add(id);
  }
  ackApproval(phase: Phase): void {
    this.approvals.add(phase);
  }
  ackPhase(phase: Phase, round: number): void {
    this.phases.push({ phase, round });
  }
  ackRework(): void {
    // Nothing to remember: the round number on disk tells which completions it undid.
  }

  /** Records what is on disk now as seen (call after a command exited 0). */
  observe(dir: string): void {
    const { phase, execution } = readState(dir);
    if (phase !== undefined) {
      this.workflowId ??= phase.workflow_id;
      const round = phase.rework?.round ?? 0;
      if (round !== this.seenRound) this.seenProgress = Math.min(this.seenProgress, 2);
      this.seenRound = round;
      this.seenProgress = Math.max(this.seenProgress, phase.completed_phases.length);
    }
    for (const task of execution?.tasks ?? []) {
      this.seenTasks.add(task.id);
      if (task.status === "complete") this.seenComplete.add(task.id);
    }
  }

  /** Every acknowledged or seen change that is no longer on disk, as messages (empty: all there). */
  check(dir: string): string[] {
    const out: string[] = [];
    const { phase, execution, problems } = readState(dir);
    if (problems.length > 0) return [`corrupt state file: ${problems.join("; ")}`];
    const tasks = new Map((execution?.tasks ?? []).map((t) => [t.id, t]));
    if (this.workflowId !== undefined) {
      if (phase === undefined) out.push(`phase.json of ${this.workflowId} is gone`);
      else if (phase.workflow_id !== this.workflowId)
        out.push(`workflow id changed from ${this.workflowId} to ${phase.workflow_id}`);
    }
    for (const id of this.added)
      if (!tasks.has(id)) out.push(`lost update: \`task add ${id}\` exited 0 but ${id} is not in execution.json`);
    for (const id of this.seenTasks)
      if (!this.added.has(id) && !tasks.has(id))
        out.push(`lost update: task ${id} was on disk after a successful command and is gone`);
    for (const id of this.completed)
      if (tasks.get(id)?.status !== "complete")
        out.push(`lost update: \`task complete ${id}\` exited 0 but ${id} is ${tasks.get(id)?.status ?? "missing"}`);
    for (const id of this.seenComplete)
      if (!this.completed.has(id) && tasks.get(id)?.status !== "complete")
        out.push(`lost update: task ${id} was complete and is now ${tasks.get(id)?.status ?? "missing"}`);
    if (phase !== undefined) {
      const approved = new Set(phase.user_checkpoints.map((c) => c.phase));
      for (const p of this.approvals)
        if (!approved.has(p)) out.push(`lost update: \`phase approve ${p}\` exited 0 but user_checkpoints has no ${p}`);
      const done = phase.completed_phases.map((c) => c.phase);
      const round = phase.rework?.round ?? 0;
      for (const ack of this.phases) {
        if (ack.round === round && !done.includes(ack.phase))
          out.push(
            `lost update: \`phase complete ${ack.phase}\` exited 0 (rework round ${ack.round}) but completed_phases is [${done.join(", ")}]`,
          );
      }
      if (round === this.seenRound && done.length < this.seenProgress)
        out.push(
          `phase progress went back from ${this.seenProgress} to ${done.length} completed phases without a rework`,
        );
      if (round < this.seenRound) out.push(`rework round went back from ${this.seenRound} to ${round}`);
      if (done.some((p, i) => p !== PHASES[i])) out.push(`completed_phases out of order: [${done.join(", ")}]`);
    }
    const events = eventsOnDisk(dir);
    out.push(...sequenceProblems(events));
    const addedEvents = new Map<string, number>();
    for (const event of events)
      if (event.type === "task_added")
        addedEvents.set(String(event.task_id), (addedEvents.get(String(event.task_id)) ?? 0) + 1);
    for (const [id, count] of addedEvents)
      if (count > 1) out.push(`events.jsonl has ${count} task_added events for ${id}`);
    for (const id of this.added)
      if (!addedEvents.has(id)) out.push(`\`task add ${id}\` exited 0 but events.jsonl has no task_added for it`);
    return out;
  }
}
