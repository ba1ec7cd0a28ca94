// A Claude Code Workflow run cut off before it ended, and what a starting session is handed for it
// (issue 43; SPEC §11 "Claude Code's Workflow runs"). Pure: the store reads the run's folder and the
// checkout's key, the hooks write.
//
// THREAT (mission priority 1: what arrives by git is history, never authority): the journal tells
// the client which agents are done (a planted one makes the model take forged results), and the
// script is code the relaunch runs. So a run is put back and its call handed only when its seal
// (an HMAC with this checkout's key, src/store/checkout-key.ts) verifies over its run id, args and
// the digests of the kept journal and script; any other run gets one line and the person's choice
// (`dotagent workflow-run resume <runId>`), never a silent relaunch.
import type { WorkflowRunRecord } from "./claude-workflow-run.js";
import { quoteId } from "./claude-workflow-run.js";
import { readJournal, rerunOnResume } from "./workflow-journal.js";

/** How a run ended (its `<task-notification>`'s status), recorded in run.json; absent or null: the run is open. */
export interface WorkflowRunEnd {
  status: string;
  at: string;
}

/** The seal beside a run (`seal.json`): the digests it covers in clear, and the HMAC over them. */
export interface WorkflowRunSeal {
  format: 1;
  run_id: string;
  journal_sha256: string;
  script_sha256: string | null;
  args_sha256: string;
  seal: string;
}

/** The text the seal's HMAC covers: the run id, its args and the digests of its journal and script. */
export const sealText = (s: Omit<WorkflowRunSeal, "format" | "seal">) =>
  JSON.stringify(["dotagent workflow-run", s.run_id, s.journal_sha256, s.script_sha256, s.args_sha256]);

/** The args as the seal and the call take them: verbatim JSON (`null` for none). */
export const argsJson = (args: unknown) => JSON.stringify(args ?? null) ?? "null";

/**
 * Whether a run's seal holds here. `sealed`: every digest as sealed, by this checkout's key.
 * Otherwise why not, in the words of the briefing's line.
 */
export type SealVerdict =
  | { kind: "sealed" }
  | { kind: "unsealed"; why: "no_seal" | "other_checkout" | "journal_edited" | "script_edited" | "args_edited" };

export const SEAL_WHY: Record<Exclude<SealVerdict, { kind: "sealed" }>["why"], string> = {
  no_seal: "dotagent never sealed it here",
  other_checkout: "it came from another checkout (a clone: its seal is not this checkout's)",
  journal_edited: "its journal was edited since dotagent copied it",
  script_edited: "its kept script changed since dotagent kept it",
  args_edited: "its args were edited since dotagent recorded them",
};

/**
 * Judges a seal. `expected` are the digests of the files as they are now; `check(text, seal)` says
 * whether `seal` is this checkout's HMAC of `text` (false when this checkout has no key).
 */
export function judgeSeal(
  seal: WorkflowRunSeal | null,
  expected: Omit<WorkflowRunSeal, "format" | "seal">,
  check: (text: string, seal: string) => boolean,
): SealVerdict {
  if (seal === null) return { kind: "unsealed", why: "no_seal" };
  if (seal.run_id !== expected.run_id || !check(sealText(seal), seal.seal))
    return { kind: "unsealed", why: "other_checkout" };
  if (seal.journal_sha256 !== expected.journal_sha256) return { kind: "unsealed", why: "journal_edited" };
  if (seal.script_sha256 !== expected.script_sha256) return { kind: "unsealed", why: "script_edited" };
  if (seal.args_sha256 !== expected.args_sha256) return { kind: "unsealed", why: "args_edited" };
  return { kind: "sealed" };
}

/** Reads a seal.json's parsed value (null: not a seal of this shape). */
export function readSeal(value: unknown): WorkflowRunSeal | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const hex = (x: unknown) => typeof x === "string" && /^[0-9a-f]{64}$/.test(x);
  if (v.format !== 1 || typeof v.run_id !== "string" || typeof v.seal !== "string") return null;
  if (!hex(v.journal_sha256) || !hex(v.args_sha256) || !(v.script_sha256 === null || hex(v.script_sha256))) return null;
  return v as unknown as WorkflowRunSeal;
}

/** The exact call that resumes a run: the kept script, the run id and the original args, verbatim. */
export const resumeCall = (scriptPath: string, runId: string, args: unknown) =>
  `Workflow({scriptPath: ${JSON.stringify(scriptPath)}, resumeFromRunId: ${JSON.stringify(runId)}, args: ${argsJson(args)}})`;

/** What the store found for one open run (its record read, its seal judged). */
export interface OpenRunFacts {
  record: WorkflowRunRecord;
  verdict: SealVerdict;
  /** The kept journal's text (dotagent's copy). */
  journal: string;
  /** The kept script's absolute path, when one is kept. */
  scriptFile: string | null;
  /** The starting session's id (null: the input named none). */
  sessionId: string | null;
  /** The process that launched it still runs: this session's own (`here`: compaction, /clear) or another (`elsewhere`); null: gone. */
  live: "here" | "elsewhere" | null;
}

export type RunHand =
  | {
      kind: "hand";
      runId: string;
      /** Its journal belongs in the starting session's folder (another session's run); after the store's try: it was put there. */
      putBack: boolean;
      call: string;
      done: string[];
      rerun: string[];
      total: number;
    }
  | { kind: "ask"; runId: string; why: string }
  | { kind: "live"; runId: string; where: "here" | "elsewhere" }
  | { kind: "none"; runId: string; why: string };

/** What a starting session is handed for an open run: the call (put back first when another session's), or the person's choice. */
export function handFor(facts: OpenRunFacts): RunHand {
  const runId = facts.record.run_id;
  // Still running: a relaunch beside it would run its agents twice.
  if (facts.live !== null) return { kind: "live", runId, where: facts.live };
  if (facts.verdict.kind === "unsealed") return { kind: "ask", runId, why: SEAL_WHY[facts.verdict.why] };
  if (facts.scriptFile === null) return { kind: "none", runId, why: "dotagent kept no script of it" };
  const reading = readJournal(facts.journal);
  const label = (a: { label: string | null; key: string }) => a.label ?? a.key.slice(0, 12);
  return {
    kind: "hand",
    runId,
    putBack: facts.sessionId !== facts.record.session_id,
    call: resumeCall(facts.scriptFile, runId, facts.record.args),
    done: reading.agents.filter((a) => a.state === "done").map(label),
    rerun: rerunOnResume(reading).map(label),
    total: reading.agents.length,
  };
}

const names = (list: readonly string[]) =>
  list.length === 0 ? "none" : `${list.slice(0, 8).join(", ")}${list.length > 8 ? `, … (${list.length})` : ""}`;

/** The question for a run that is not put back: the person's to answer (SPEC §10 "Who decides"). */
export const resumeQuestion = (runId: string, why: string) =>
  `Claude Code workflow run ${quoteId(runId)} was cut off, and dotagent does not trust its kept copy: ${why}. Resume it from that copy anyway (its finished agents' results are taken as they are, its kept script runs)?`;

/** Ends after which nothing is left to resume: the run's own completion, or the person's `forget`. */
export const FINAL_ENDS: ReadonlySet<string> = new Set(["completed", "forgotten"]);

/** The question for a run that was stopped (TaskStop, a failure): resuming it is the person's choice. */
export const resumeStoppedQuestion = (runId: string, ended: WorkflowRunEnd, untrusted: string | null) =>
  `Claude Code workflow run ${quoteId(runId)} ended ${ended.status} at ${ended.at}${untrusted === null ? "" : `, and dotagent does not trust its kept copy: ${untrusted}`}. Resume it from dotagent's copy (its finished agents' results are kept, only the rest runs)?`;

export const resumeYes = (runId: string) => `dotagent workflow-run resume ${runId} --yes`;
export const resumeNo = (runId: string) => `dotagent workflow-run forget ${runId}`;

/**
 * The briefing's lines for the open runs (empty: nothing to say). `helper`: the hook's own script,
 * so the model can run the person's choice (the allow grammar lets that line run).
 */
export function runLines(hands: readonly RunHand[], changed: ReadonlyMap<string, string>, helper?: string): string[] {
  const cli = helper ? `node ${JSON.stringify(helper)}` : "dotagent";
  const lines: string[] = [];
  for (const hand of hands) {
    const id = quoteId(hand.runId);
    if (hand.kind === "hand") {
      lines.push(
        `dotagent: Claude Code workflow run ${id} was cut off before it ended${hand.putBack ? " (dotagent put its journal back into this session)" : ""}: ${hand.done.length} of ${hand.total} agents finished (${names(hand.done)}); a relaunch runs again: ${names(hand.rerun)}.`,
        `To resume it with no finished agent run again, call exactly: ${hand.call}`,
      );
      const source = changed.get(hand.runId);
      if (source !== undefined)
        lines.push(`Its source ${source} changed since the launch; resuming runs the kept script.`);
    } else if (hand.kind === "ask")
      lines.push(
        `dotagent: Claude Code workflow run ${id} was cut off, but is not put back: ${hand.why}. Whether to resume it from dotagent's copy is the person's: run \`${cli} workflow-run resume ${hand.runId}\` (it records the question, exit 5), show them its question and end your turn; on their yes run it with --yes and make the call it prints. Never relaunch the run otherwise.`,
      );
    else if (hand.kind === "live")
      lines.push(
        hand.where === "here"
          ? `dotagent: Claude Code workflow run ${id} is still running in this Claude Code process: it goes on by itself (its notification comes when it ends); do not relaunch it.`
          : `dotagent: Claude Code workflow run ${id} is still running in another Claude Code process: do not relaunch it here; once that process is gone, a new session hands its resume.`,
      );
    else lines.push(`dotagent: Claude Code workflow run ${id} was cut off; it cannot be resumed: ${hand.why}.`);
  }
  return lines;
}

/** What the person types to have the model resume a cut-off run (the person's line names it). */
export const RESUME_WORDS = "resume the cut-off workflow";

/**
 * The person's line for the open runs a session start looked at (null: nothing to tell them): the
 * interactive client shows it under the hook's name, where the briefing's lines (the call, the
 * helper's command) are the model's and never shown. Plain words and what to type; a run still
 * running in this process (a compaction) is no news. `names`: each run's workflow name, when recorded.
 */
export function runPersonLine(hands: readonly RunHand[], names: ReadonlyMap<string, string>): string | null {
  const said: string[] = [];
  for (const hand of hands) {
    const name = names.get(hand.runId);
    const run = `workflow ${name === undefined ? "" : `"${shown(name, 60)}" `}(run ${shown(hand.runId, 40)})`;
    if (hand.kind === "hand") {
      const again =
        hand.rerun.length === 0
          ? "no agent runs again"
          : `${plain(hand.rerun)} ${hand.rerun.length === 1 ? "runs" : "run"} again`;
      said.push(
        `${run} was cut off with ${hand.done.length} of ${hand.total} agents finished. Type "${RESUME_WORDS}" to finish it: ${again}${hand.done.length > 0 ? ", no finished agent does" : ""}.`,
      );
    } else if (hand.kind === "ask")
      said.push(
        `${run} was cut off; dotagent does not resume it by itself: ${hand.why}. Type "${RESUME_WORDS}" to be asked whether to.`,
      );
    else if (hand.kind === "none") said.push(`${run} was cut off and cannot be resumed: ${hand.why}.`);
    else if (hand.where === "elsewhere") said.push(`${run} still runs in another Claude Code process; not here.`);
  }
  return said.length === 0 ? null : `dotagent: Claude Code ${said.join(" Claude Code ")}`;
}

/** Text from run.json or the journal (it may arrive by git) as the person's terminal shows it: no control characters, no quotes, cut short. */
const shown = (text: string, max: number) => {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f"]/g, "?");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
};

const plain = (list: readonly string[]) => {
  const some = list.slice(0, 4).map((label) => shown(label, 40));
  return list.length <= 4 ? some.join(", ") : `${some.join(", ")} and ${list.length - 4} more`;
};
