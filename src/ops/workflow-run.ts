// `dotagent workflow-run resume|forget RUN_ID` (SPEC §10, §11 "Claude Code's Workflow runs"): the
// person's choice on a Workflow run cut off whose kept copy is not trusted here (a clone, a hand
// edit, a changed script). Resuming takes its journal's results and runs its kept script, so it is
// the person's: from an agent's shell without --yes the question is recorded and handed back (exit
// 5); with --yes it counts only after the person replied yes (src/ops/person-gate.ts). Once theirs,
// the run is sealed here and its exact call printed. The journal is put back into the session by
// this line's own PreToolUse (src/ops/workflow-resume.ts: the command knows no session), or by the
// next session's start for a person at a terminal. `forget` records the run as ended (its no).
import { DotagentError, EXIT } from "../core/errors.js";
import { RUN_ID, quoteId } from "../core/claude-workflow-run.js";
import type { Decision } from "../core/plan-resume.js";
import {
  FINAL_ENDS,
  SEAL_WHY,
  handFor,
  resumeNo,
  resumeQuestion,
  resumeStoppedQuestion,
  resumeYes,
  type WorkflowRunEnd,
} from "../core/workflow-resume.js";
import { join } from "node:path";
import { readRunFolder, runFolder, runLive, writeSeal, type RunFolder } from "../store/workflow-runs.js";
import { writeJsonInside } from "../store/write-file.js";
import { locked, type OpContext } from "./op-context.js";

export interface WorkflowRunResumed {
  run_id: string;
  /** Whether the person's answer sealed it now (false: its seal already held). */
  sealed_now: boolean;
  call: string;
  done: string[];
  rerun: string[];
}

/**
 * The kept run, or a refusal: unknown, or ended. `stopped: "allow"`: a run that ended other than
 * completed or forgotten (stopped by TaskStop, failed) is taken, for the person to resume.
 */
function runOrRefuse(context: OpContext, runId: string, stopped: "allow" | "refuse" = "refuse"): RunFolder {
  const run = RUN_ID.test(runId) ? readRunFolder(context.paths, runId) : null;
  if (run === null)
    throw new DotagentError(
      "workflow_run_unknown",
      `no Claude Code workflow run ${quoteId(runId)} is kept here (memory/state/workflow-runs/<runId>/run.json)`,
      EXIT.refused,
      { run_id: runId },
    );
  if (run.record.ended != null && (stopped === "refuse" || FINAL_ENDS.has(run.record.ended.status)))
    throw new DotagentError(
      "workflow_run_ended",
      `Claude Code workflow run ${quoteId(runId)} ended (${run.record.ended.status} at ${run.record.ended.at}): there is nothing to resume`,
      EXIT.refused,
      { run_id: runId, ended: run.record.ended },
    );
  return run;
}

/** A run whose launching Claude Code process still runs goes on by itself: a relaunch would run its agents twice. */
function refuseLive(context: OpContext, run: RunFolder, runId: string): void {
  const live = runLive(run.record, context.now());
  if (live !== null)
    throw new DotagentError(
      "workflow_run_live",
      `Claude Code workflow run ${quoteId(runId)} is still running in ${live === "here" ? "this" : "another"} Claude Code process: it goes on by itself, and a relaunch would run its agents twice; once that process is gone, resume it`,
      EXIT.refused,
      { run_id: runId, where: live },
    );
}

/** The question `resume` puts to the person for a run whose seal does not hold, or null (it holds: nothing to decide). */
export function resumeDecision(context: OpContext, runId: string): Decision | null {
  const run = runOrRefuse(context, runId, "allow");
  refuseLive(context, run, runId);
  // Stopped on purpose (or failed): going on is the person's choice, whoever asks.
  if (run.record.ended != null)
    return {
      question: resumeStoppedQuestion(
        runId,
        run.record.ended,
        run.verdict.kind === "sealed" ? null : SEAL_WHY[run.verdict.why],
      ),
      default: false,
      yes: resumeYes(runId),
      no: resumeNo(runId),
    };
  if (run.verdict.kind === "sealed") return null;
  return {
    question: resumeQuestion(runId, SEAL_WHY[run.verdict.why]),
    default: false,
    yes: resumeYes(runId),
    no: resumeNo(runId),
  };
}

/** Seals the run here as it is kept now (the person's answer taken), and hands its exact call. */
export async function resumeRun(context: OpContext, runId: string): Promise<WorkflowRunResumed> {
  return locked(context, "workflow-run resume", () => {
    const run = runOrRefuse(context, runId, "allow");
    refuseLive(context, run, runId);
    if (run.script === null)
      throw new DotagentError(
        "workflow_run_unknown",
        `Claude Code workflow run ${quoteId(runId)} has no kept script (memory/state/workflow-runs/${runId}/script.js): it cannot be resumed`,
        EXIT.refused,
        { run_id: runId },
      );
    const sealedNow = run.verdict.kind !== "sealed";
    if (sealedNow) {
      const failed = writeSeal(context.paths, runId, run.journal, run.script, run.record.args);
      if (failed !== null)
        throw new DotagentError("io_failed", `the run could not be sealed here: ${failed}`, EXIT.refused, {
          run_id: runId,
        });
    }
    const hand = handFor({
      record: run.record,
      verdict: { kind: "sealed" },
      journal: run.journal.toString("utf8"),
      scriptFile: join(runFolder(context.paths, runId), "script.js"),
      sessionId: null,
      live: null,
    });
    if (hand.kind !== "hand") throw new Error("a sealed run with a script is handed");
    // A stopped run taken up again is open once more: its relaunch's end is recorded anew.
    if (run.record.ended != null)
      writeJsonInside(context.paths.root, join(runFolder(context.paths, runId), "run.json"), {
        ...run.record,
        ended: null,
      });
    return { run_id: runId, sealed_now: sealedNow, call: hand.call, done: hand.done, rerun: hand.rerun };
  });
}

/** Records the run as ended (`forgotten`): no longer open, never put back or handed again. */
export async function forgetRun(context: OpContext, runId: string): Promise<{ run_id: string; ended: WorkflowRunEnd }> {
  return locked(context, "workflow-run forget", () => {
    const run = runOrRefuse(context, runId, "allow");
    const ended: WorkflowRunEnd = { status: "forgotten", at: context.now().toISOString() };
    writeJsonInside(context.paths.root, join(runFolder(context.paths, runId), "run.json"), { ...run.record, ended });
    return { run_id: runId, ended };
  });
}
