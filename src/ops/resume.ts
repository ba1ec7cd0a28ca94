// `resume`: validate, repair what is safe to repair, advance, name the next action. A question for
// a person (stale state, a changed request, corrupt state) goes to the injected `decide`; without
// an answer the plan comes back with `decision` set and nothing is written. The writer, fresh
// starts and init load only when something is written: `resume --dry-run` is a read, as cheap to
// start as `status` (a write loads node:crypto for its temp file's name: write-file.ts).
import type { Flow } from "../core/flow.js";
import { existsSync } from "node:fs";
import { replacesComplete, type Decision, type ResumeOptions, type ResumePlan } from "../core/plan-resume.js";
import { planWithRecovery } from "./recovery.js";
import { loadSnapshot } from "../store/session.js";
import { appendEvents } from "../store/events.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import {
  checkoutFactsFor,
  checkoutQuestionFor,
  needsWorktreeRecovery,
  oneOperation,
  worktreeFolders,
} from "../store/worktrees.js";
import type { Repair } from "../core/tasks.js";
import type { StateSnapshot } from "../core/snapshot.js";
import { carryWaitingReply, locked, type OpContext } from "./op-context.js";
import { planJson, type PlanJson } from "./plan-json.js";
import { planWithDir } from "./decision-dir.js";
import { releaseGoneRun } from "./gone-run.js";

/** The answer to a decision: yes, no, or "no-terminal" when nobody can be asked. */
export type DecisionAnswer = boolean | "no-terminal";
export type Decide = (decision: Decision) => DecisionAnswer | Promise<DecisionAnswer>;

export interface ResumeInput extends ResumeOptions {
  /** `--start`, or a changed request's new workflow: the definition it walks (`--workflow NAME`); none: develop. */
  readonly workflow?: Flow | undefined;
  readonly dryRun?: boolean | undefined;
  /** `--start`: with a request and no workflow, start one (the /develop command asked for it; memory/ is created then). */
  readonly start?: boolean | undefined;
  /** Asked when the plan needs a person; absent: the plan comes back unanswered. */
  readonly decide?: Decide | undefined;
  /** `--isolation commit|shared`: the answer to a round's uncommitted-changes question (SPEC §19). */
  readonly isolation?: "commit" | "shared" | undefined;
  /** `--keep-edit`: the answer "keep it" to the hand-edit question (SPEC §5). */
  readonly keepEdits?: boolean | undefined;
  /** `--keep-definition`: the answer "keep walking the pinned steps" to a changed definition (SPEC §20). */
  readonly keepDefinition?: boolean | undefined;
}

/** `resume --json`: the plan of SPEC §5 and whether it was carried out. */
export type ResumeResult = PlanJson;

export interface ResumeOutcome {
  readonly result: ResumeResult;
  readonly plan: ResumePlan;
  /** "status" when nothing was locked (dry run, no state folder): how the CLI words the plan. */
  readonly mode: "status" | "resume";
  /** The CLI's exit code: 0, 5 (a decision nobody answered) or 3 (corrupt state the person would not replace). */
  readonly exitCode: 0 | 3 | 5;
}

/** The outcome, or undefined when three rounds of answers did not settle the plan (the CLI exits 1). */
export function resumeWorkflow(context: OpContext, input: ResumeInput): Promise<ResumeOutcome | undefined> {
  // One operation: its repository lookups are asked once (oneOperation).
  return oneOperation(() => resumeWorkflowIn(context, input));
}

async function resumeWorkflowIn(context: OpContext, input: ResumeInput): Promise<ResumeOutcome | undefined> {
  let now = context.now();
  let options: ResumeOptions = {
    request: input.request,
    staleAfterMs: input.staleAfterMs,
    maxParallel: input.maxParallel,
    keepEdits: input.keepEdits,
    newWorkflow: input.workflow?.name,
  };
  /** What was done between rounds (a rollback the person chose), told with the final plan. */
  const done: Repair[] = [];
  /** Whether this call started a new workflow (a changed request answered yes, or after a complete one). */
  let startedNew = false;
  // Nothing on disk: nothing to lock, repair or log (resume never creates memory/ by itself).
  const starting = input.start === true && (options.request?.trim() ?? "") !== "";
  if (input.dryRun || (!existsSync(context.paths.stateDir) && !starting)) {
    const snapshot = await loadSnapshot(context.paths);
    const plan = planWithDir(
      await planWithRecovery(context.paths, snapshot, now, {
        ...options,
        owners: judgeRunningTasks(snapshot, now),
        checkout: checkoutQuestionFor(context.paths.root, snapshot),
      }),
      context.dirArg,
    );
    return { result: planJson(plan, false), plan, mode: "status", exitCode: plan.decision ? 5 : 0 };
  }
  let isolation = input.isolation;
  // The checks below read the person's answer: a reply of theirs still waiting is carried out first.
  if (context.byModel && (isolation !== undefined || input.keepEdits === true || input.keepDefinition === true))
    await carryWaitingReply(context, "resume");
  // The uncommitted-changes question is the person's (SPEC §19): from an agent's shell, only after their reply.
  if (isolation !== undefined && context.byModel)
    await (await import("./person-gate.js")).requireIsolationAnswer(context.paths, isolation);
  // So is keeping a hand edit of the state (most likely the model's own).
  if (input.keepEdits === true && context.byModel)
    await (await import("./person-gate.js")).requireKeepEditAnswer(context.paths);
  // And going on with a definition that changed under the workflow.
  if (input.keepDefinition === true) {
    if (context.byModel) await (await import("./person-gate.js")).requireKeepDefinitionAnswer(context.paths);
    await keepDefinition(context);
  }
  // Decisions may need a person, so the lock is taken per round, not across a prompt.
  for (let round = 0; round < 3; round++) {
    const { proveClearing } = await import("./fresh-start.js");
    const plan = await locked(context, "resume", async () => {
      // Worktrees first: merges cut off, tasks done whose session is gone, leftovers (SPEC §19).
      const worktreeRepairs: Repair[] = [];
      // A killed `dotagent run`'s lock: this session goes on with the workflow (gone-run.ts).
      const goneRun = round === 0 ? releaseGoneRun(context.paths.root, now) : undefined;
      if (goneRun !== undefined) worktreeRepairs.push(goneRun);
      const first = await loadSnapshot(context.paths);
      if (first.phase.kind === "ok" && first.clearing == null) {
        const { recoverWorktrees, chooseIsolation } = await import("./worktree-tasks.js");
        if (isolation !== undefined) {
          const note = await chooseIsolation(context, isolation, now);
          if (note !== undefined) worktreeRepairs.push({ code: "isolation_decided", message: note });
          isolation = undefined;
        }
        if (needsWorktreeRecovery(context.paths.root, first) || hasTaskWorktreeHistory(context.paths.root, first))
          worktreeRepairs.push(...(await recoverWorktrees(context, now, { branches: true })));
      }
      const { snapshot, files } = await proveClearing(context.paths, await loadSnapshot(context.paths));
      const planned0 = await planWithRecovery(context.paths, snapshot, now, {
        ...options,
        owners: judgeRunningTasks(snapshot, now),
        checkout: checkoutFactsFor(context.paths.root, snapshot),
      });
      const before = [...done, ...worktreeRepairs];
      const planned = before.length > 0 ? { ...planned0, repairs: [...before, ...planned0.repairs] } : planned0;
      if (planned.decision === null || planned.decisionKind === "isolation") {
        const { applyPlan } = await import("./settle.js");
        await applyPlan(context, snapshot, planned0, now, { archivedFiles: files, logResumed: true });
      }
      const request = options.request?.trim() ?? "";
      if (input.start && planned.situation === "none" && request !== "") {
        const [{ initWorkflow }, { settle }] = await Promise.all([import("./init.js"), import("./settle.js")]);
        const state = await initWorkflow(context.paths, options.request, undefined, now, context.warn, input.workflow);
        const started = (await settle(context, now)).plan;
        return planWithDir(
          {
            ...started,
            situation: "started" as const,
            repairs: [
              {
                code: "workflow_started",
                message: `started workflow ${state.workflow_id} for ${JSON.stringify(options.request)}`,
              },
              ...started.repairs,
            ],
          },
          context.dirArg,
        );
      }
      return planWithDir(planned, context.dirArg);
    });
    if (plan.decision === null) {
      // A new workflow the person's answer (or a finished one) started: said as started, like `resume --start`.
      const shown = startedNew ? { ...plan, situation: "started" as const } : plan;
      return { result: planJson(shown, true), plan: shown, mode: "resume", exitCode: 0 };
    }
    // `/develop <a new request>` after a complete workflow: archived without asking, as `init` does
    // (a complete workflow is never resumed; nothing of it is lost: the archive keeps it).
    const finished = input.start === true && replacesComplete(plan);
    const answer = finished ? true : input.decide ? await input.decide(plan.decision) : "no-terminal";
    if (answer === "no-terminal")
      return { result: planJson(plan, plan.decisionKind === "isolation"), plan, mode: "resume", exitCode: 5 };
    if (plan.decisionKind === "isolation") {
      isolation = answer ? "commit" : "shared";
      continue;
    }
    if (plan.decisionKind === "definition_changed") {
      if (answer) await keepDefinition(context);
      else {
        // A fresh start with the new definition: the old workflow goes into an archive first.
        const [{ archiveLiveState }, { resolveWorkflowName }, { initWorkflow }] = await Promise.all([
          import("./fresh-start.js"),
          import("./workflow-name.js"),
          import("./init.js"),
        ]);
        const state = (await loadSnapshot(context.paths)).phase;
        const pinned = state.kind === "ok" ? state.value : undefined;
        const flow = await resolveWorkflowName(context.paths.root, pinned?.workflow?.name ?? "develop");
        const name = await locked(context, "resume", () =>
          archiveLiveState(context.paths, "definition changed", now, context.note),
        );
        if (name) context.note(`Archived the old state as ${name}`);
        await locked(context, "resume", () =>
          initWorkflow(context.paths, pinned?.request ?? undefined, undefined, now, context.warn, flow),
        );
      }
      continue;
    }
    if (plan.decisionKind === "corrupt_rollback" || plan.decisionKind === "hand_edit") {
      const rev = plan.next.rev;
      if (answer && rev !== undefined) {
        // Back to what dotagent last kept: the rollback command's own path (lock, journal, archive).
        const { rollBackWorkflow } = await import("./rollback.js");
        const rolled = await rollBackWorkflow(context, String(rev), () => true);
        const archive = rolled.result.archive;
        done.push({
          code: "rolled_back",
          message: `went back to ${rolled.describe}${archive ? `; the ${plan.decisionKind === "hand_edit" ? "edited" : "corrupt"} files are in ${archive}` : ""}`,
        });
        now = context.now(); // the rollback wrote after this call's first clock reading
      } else if (plan.decisionKind === "hand_edit") options = { ...options, keepEdits: true };
      else options = { ...options, declineRollback: true };
      continue;
    }
    if (answer) {
      const reason =
        plan.decisionKind === "stale"
          ? "stale state"
          : plan.decisionKind === "corrupt"
            ? "corrupt state"
            : "request changed";
      const { archiveLiveState } = await import("./fresh-start.js");
      const name = await locked(context, "resume", () => archiveLiveState(context.paths, reason, now, context.note));
      if (name) context.note(`Archived the old state as ${name}`);
      if (plan.decisionKind === "request_changed" && options.request !== undefined) {
        const { initWorkflow } = await import("./init.js");
        const state = await locked(context, "resume", () =>
          initWorkflow(context.paths, options.request, undefined, now, context.warn, input.workflow),
        );
        done.push({
          code: "workflow_started",
          message: `started workflow ${state.workflow_id} for ${JSON.stringify(options.request)}`,
        });
        startedNew = true;
      }
      options = { ...options, request: undefined };
      continue;
    }
    if (plan.decisionKind === "corrupt") return { result: planJson(plan, false), plan, mode: "resume", exitCode: 3 };
    options =
      plan.decisionKind === "stale"
        ? { ...options, staleAfterMs: Number.POSITIVE_INFINITY }
        : { ...options, request: undefined };
  }
  return undefined;
}

/** Records "keep walking the pinned steps" for the definition's current version (event `definition_kept`). */
async function keepDefinition(context: OpContext): Promise<void> {
  const snapshot = await loadSnapshot(context.paths);
  if (snapshot.phase.kind !== "ok" || snapshot.phase.value.workflow === undefined) return;
  const pinned = snapshot.phase.value.workflow;
  const [{ workflowCatalog }, { workflowHash }] = await Promise.all([
    import("../store/workflow-files.js"),
    import("../core/flow-of.js"),
  ]);
  const resolved = (await workflowCatalog(context.paths.root)).resolve(pinned.name);
  if (!resolved.ok) return;
  const hash = workflowHash(resolved.flow);
  if (hash === pinned.hash) return;
  const { appendAuthority } = await import("./person-gate.js");
  await locked(context, "resume", () =>
    appendAuthority(context, snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined, [
      { type: "definition_kept", workflow: pinned.name, hash, pinned: pinned.hash },
    ]),
  );
}

/** Whether this workflow ever gave a task a worktree, or worktrees are on disk: then `resume` also looks for leftover branches. */
function hasTaskWorktreeHistory(root: string, snapshot: StateSnapshot): boolean {
  const tasks = snapshot.execution.kind === "ok" ? snapshot.execution.value.tasks : [];
  return tasks.some((t) => t.worktree != null) || worktreeFolders(root).length > 0;
}
