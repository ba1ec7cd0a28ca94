// What `dotagent run` remembers about a workflow beyond the state files, in its own checkpoint
// store (memory/runs/<workflow_id>/, beside the agents' session records) under the id `run`:
//   approve     "auto" once a run was given --approve auto, "ask" once given --approve ask; a run
//               without --approve uses it (default ask)
//   feedback    every piece of free-text feedback given at a gate, in order (ARCHITECTURE's
//               become final_design.json's user_notes)
//   pending     feedback not acted on yet: the sessions that revise for it run first on the next
//               run, so a kill or Ctrl-C mid-revision loses nothing
// Tied to the workflow instance by phase.json's started_at: a new workflow that reuses the id
// starts with nothing remembered. A record that is not one of these (hand-edited) is ignored.
import { checkpointStore } from "../api/checkpoint-store.js";
import type { FeedbackGate } from "../core/revision.js";
import { runsDir } from "./agent-session.js";

export interface PendingFeedback {
  readonly gate: FeedbackGate;
  /** 1 for the first feedback at this gate, 2 for the next, … (the revision sessions' keys). */
  readonly round: number;
  readonly text: string;
  /** "revise": the pm or the architects revise; "roundtable": the revised designs are compared again. */
  readonly stage: "revise" | "roundtable";
  /** The revision jobs (keys) that finished, so a continued run does not redo them. */
  readonly revised: readonly string[];
}

export interface RunMemory {
  readonly workflow_started_at: string;
  readonly approve?: "ask" | "auto";
  readonly feedback: ReadonlyArray<{ readonly gate: FeedbackGate; readonly text: string; readonly at: string }>;
  readonly pending: PendingFeedback | null;
  /** "shared": as the workflow started, the person chose to run its tasks without worktrees (SPEC §19 Settled up front). */
  readonly isolation?: "shared";
  /** The SDK's estimated cost of this workflow's sessions, over all its runs (USD), and how many sessions said one. */
  readonly cost_usd?: number;
  readonly costed_sessions?: number;
}

const ID = "run";

function parse(value: unknown, startedAt: string): RunMemory {
  const empty: RunMemory = { workflow_started_at: startedAt, feedback: [], pending: null };
  if (!value || typeof value !== "object") return empty;
  const v = value as Partial<RunMemory>;
  if (v.workflow_started_at !== startedAt) return empty;
  // develop's REQUIREMENTS and ARCHITECTURE, or a definition's gated step (SPEC §20 step ids).
  const gate = (g: unknown): g is FeedbackGate => typeof g === "string" && /^[A-Za-z][A-Za-z0-9_-]{0,39}$/.test(g);
  const feedback = Array.isArray(v.feedback)
    ? v.feedback.filter((f) => f && gate(f.gate) && typeof f.text === "string" && typeof f.at === "string")
    : [];
  const p = v.pending;
  const pending =
    p &&
    gate(p.gate) &&
    Number.isSafeInteger(p.round) &&
    p.round > 0 &&
    typeof p.text === "string" &&
    (p.stage === "revise" || p.stage === "roundtable") &&
    Array.isArray(p.revised) &&
    p.revised.every((k) => typeof k === "string")
      ? p
      : null;
  const cost =
    typeof v.cost_usd === "number" &&
    Number.isFinite(v.cost_usd) &&
    v.cost_usd >= 0 &&
    Number.isSafeInteger(v.costed_sessions) &&
    (v.costed_sessions ?? 0) > 0
      ? { cost_usd: v.cost_usd, costed_sessions: v.costed_sessions! }
      : {};
  return {
    workflow_started_at: startedAt,
    ...(v.approve === "auto" || v.approve === "ask" ? { approve: v.approve } : {}),
    ...(v.isolation === "shared" ? { isolation: "shared" as const } : {}),
    feedback,
    pending,
    ...cost,
  };
}

export class RunMemoryStore {
  constructor(
    private readonly root: string,
    private readonly workflowId: string,
    private readonly startedAt: string,
  ) {}

  private store() {
    return checkpointStore<unknown>(runsDir(this.root), this.workflowId);
  }

  async read(): Promise<RunMemory> {
    try {
      return parse(await this.store().load(ID), this.startedAt);
    } catch {
      // an unreadable record remembers nothing; the next change writes a good one
      return parse(undefined, this.startedAt);
    }
  }

  private turn: Promise<unknown> = Promise.resolve();

  /**
   * Read, change, save: one runner at a time holds memory/runs/.lock, so no other process writes
   * between; inside the run, changes take turns (parallel sessions end at once), so none is lost.
   */
  change(fn: (memory: RunMemory) => RunMemory): Promise<RunMemory> {
    const next = this.turn.then(async () => {
      const changed = fn(await this.read());
      await this.store().save(ID, changed);
      return changed;
    });
    this.turn = next.catch(() => undefined);
    return next;
  }
}
