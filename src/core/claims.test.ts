import { describe, expect, it } from "vitest";
import {
  CLAIM_LEASE_MS,
  CLAIM_SKEW_MS,
  claimRef,
  isLapsed,
  isRenewDue,
  landingsToTakeIn,
  outageRetryWait,
  planClaim,
  planHolderChange,
  type ClaimRecord,
  type SeenClaim,
} from "./claims.js";

const me = { id: "aaaaaaaaaaaaaaaa", host: "laptop", pid: 10 };
const other = { id: "bbbbbbbbbbbbbbbb", host: "ci-2", pid: 20 };
const T0 = Date.parse("2026-11-30T07:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);
const facts = (ms: number) => ({ workflowId: "wf", taskId: "t1", worker: me, now: at(ms) });

function seen(state: ClaimRecord["state"], worker = other, attempt = 1, sha = "s1"): SeenClaim {
  return {
    sha,
    claim: {
      format: 1,
      workflow_id: "wf",
      task_id: "t1",
      state,
      worker,
      claimed_at: at(0).toISOString(),
      renewed_at: at(0).toISOString(),
      expires_at: state === "held" ? at(CLAIM_LEASE_MS).toISOString() : null,
      attempt,
    },
  };
}

const END = CLAIM_LEASE_MS + CLAIM_SKEW_MS;

describe("planClaim: what a worker does given the claim seen on the remote", () => {
  it.each([
    ["no ref: create, attempt 1", undefined, 0, "create", undefined, 1],
    ["held by another inside its lease: wait", seen("held"), 1000, "wait", undefined, undefined],
    ["held by another, lease over but inside the skew: wait", seen("held"), END, "wait", undefined, undefined],
    ["held by another past lease and skew: take over, attempt + 1", seen("held", other, 2), END + 1, "take", "s1", 3],
    ["released: take, attempt + 1", seen("released"), 0, "take", "s1", 2],
    ["done: never claimed again", seen("done"), END * 10, "done", undefined, undefined],
    ["held by me (a push whose answer was lost): mine", seen("held", me), 1000, "mine", undefined, undefined],
    ["held by me and lapsed: still mine (nobody took it)", seen("held", me), END * 2, "mine", undefined, undefined],
  ] as const)("%s", (_name, s, ms, action, expect_, attempt) => {
    const plan = planClaim(s, facts(ms));
    expect(plan.action).toBe(action);
    if (plan.action === "take") expect(plan.expect).toBe(expect_);
    if (plan.action === "create" || plan.action === "take") {
      expect(plan.claim.attempt).toBe(attempt);
      expect(plan.claim.worker).toEqual(me);
      expect(plan.claim.state).toBe("held");
      expect(plan.claim.expires_at).toBe(at(ms + CLAIM_LEASE_MS).toISOString());
    }
  });

  it("held by this clone's earlier worker whose process is gone: taken over at once, inside its lease; a live or another clone's holder is waited for", () => {
    const restarted = new Set([other.id]);
    const plan = planClaim(seen("held", other, 2), { ...facts(1000), restarted });
    expect(plan).toMatchObject({ action: "take", expect: "s1", why: "restarted", from: other });
    if (plan.action === "take") expect(plan.claim).toMatchObject({ worker: me, attempt: 3, state: "held" });
    expect(planClaim(seen("held"), { ...facts(1000), restarted: new Set(["cccccccccccccccc"]) }).action).toBe("wait");
    expect(planClaim(seen("done"), { ...facts(1000), restarted }).action).toBe("done");
  });

  it("wait names the holder and its expiry", () => {
    expect(planClaim(seen("held"), facts(5))).toEqual({
      action: "wait",
      holder: other,
      until: at(CLAIM_LEASE_MS).toISOString(),
    });
  });
});

describe("planHolderChange: renew, release, done, only while the ref holds this worker's claim", () => {
  it.each([
    ["renew my held claim: pushed against the sha seen", "renew", seen("held", me, 2, "s9"), 60_000, "push"],
    ["release my held claim", "release", seen("held", me), 0, "push"],
    ["done on my held claim", "done", seen("held", me), 0, "push"],
    ["renew after a lapse nobody noticed: still pushed", "renew", seen("held", me), END * 3, "push"],
    ["taken over by another: lost", "renew", seen("held", other, 2, "s2"), 0, "lost"],
    ["released meanwhile: lost", "done", seen("released", other), 0, "lost"],
    ["done by another: lost", "renew", seen("done", other), 0, "lost"],
    ["my own claim released already: lost", "release", seen("released", me), 0, "lost"],
    ["ref gone: lost", "renew", undefined, 0, "lost"],
  ] as const)("%s", (_name, change, s, ms, action) => {
    const plan = planHolderChange(change, s, facts(ms));
    expect(plan.action).toBe(action);
    if (plan.action !== "push") return;
    expect(plan.expect).toBe(s!.sha);
    expect(plan.claim.attempt).toBe(s!.claim.attempt);
    expect(plan.claim.claimed_at).toBe(s!.claim.claimed_at);
    expect(plan.claim.renewed_at).toBe(at(ms).toISOString());
    expect(plan.claim.state).toBe({ renew: "held", release: "released", done: "done" }[change]);
    expect(plan.claim.expires_at).toBe(change === "renew" ? at(ms + CLAIM_LEASE_MS).toISOString() : null);
  });

  it("a lost claim says who has it now, in one line", () => {
    const plan = planHolderChange("renew", seen("held", other, 2), facts(0));
    expect(plan).toMatchObject({
      action: "lost",
      why: `its claim was taken over by worker bbbbbbbbbbbbbbbb (host ci-2, pid 20) at ${at(0).toISOString()}`,
    });
  });
});

describe("lease arithmetic", () => {
  it.each([
    ["inside the lease", 0, false],
    ["at expiry", CLAIM_LEASE_MS, false],
    ["at expiry + skew", END, false],
    ["1 ms past expiry + skew", END + 1, true],
  ])("isLapsed %s: %s", (_name, ms, lapsed) => expect(isLapsed(seen("held").claim, at(ms))).toBe(lapsed));

  it("released and done claims never lapse", () => {
    expect(isLapsed(seen("released").claim, at(END * 100))).toBe(false);
    expect(isLapsed(seen("done").claim, at(END * 100))).toBe(false);
  });

  it.each([
    ["just renewed", 0, false],
    ["a renewal period before expiry - skew", CLAIM_LEASE_MS - CLAIM_SKEW_MS - CLAIM_LEASE_MS / 3, true],
    ["1 ms earlier", CLAIM_LEASE_MS - CLAIM_SKEW_MS - CLAIM_LEASE_MS / 3 - 1, false],
  ])("isRenewDue %s: %s", (_name, ms, due) => expect(isRenewDue(seen("held", me).claim, at(ms))).toBe(due));
});

describe("outageRetryWait: a remote that does not answer before landing, tried again while the lease lasts", () => {
  // The lease from 0 lasts to 5 min; retries stop by expiry - skew (1 min) - margin (30 s) = 3.5 min.
  const UNTIL = CLAIM_LEASE_MS - CLAIM_SKEW_MS - 30_000;
  it.each<[string, number, number, number | undefined]>([
    ["the first failure", 1, 0, 1_000],
    ["the second", 2, 0, 2_000],
    ["the fifth", 5, 0, 15_000],
    ["the hundredth", 100, 0, 15_000],
    ["a wait that ends at the limit", 1, UNTIL - 1_000, 1_000],
    ["one that ends past it", 1, UNTIL - 999, undefined],
    ["no failure yet", 0, 0, undefined],
  ])("%s", (_name, failures, ms, wait) => expect(outageRetryWait(failures, at(ms), seen("held", me).claim)).toBe(wait));

  it("a claim not held (or none known) is never waited for", () => {
    expect(outageRetryWait(1, at(0), seen("done", me).claim)).toBeUndefined();
    expect(outageRetryWait(1, at(0), undefined)).toBeUndefined();
  });
});

describe("claimRef: ids that name a ref", () => {
  it.each([
    ["wf", "t1", "refs/dotagent/claims/wf/t1"],
    ["wf-login", "task.2_b", "refs/dotagent/claims/wf-login/task.2_b"],
    ["wf", "a..b", null],
    ["wf", "t.lock", null],
    ["wf", "t.", null],
    ["wf", "a/b", null],
    ["../x", "t1", null],
    ["wf", "-t", null],
    ["wf", "", null],
  ])("%s %s → %s", (wf, task, ref) => {
    const r = claimRef(wf, task);
    expect(r.ok ? r.ref : null).toBe(ref);
  });
});

describe("landing through the remote: done carries its landing; others' landings taken in as history", () => {
  const landed = { branch: "main", commit: "c".repeat(40) };

  it("done by the holder names its landing; renew and release never do", () => {
    const held = seen("held", me);
    expect(planHolderChange("done", held, facts(1000), landed)).toMatchObject({
      action: "push",
      claim: { state: "done", landed, expires_at: null, attempt: 1 },
    });
    const renewed = planHolderChange("renew", held, facts(1000), landed);
    expect(renewed.action === "push" && "landed" in renewed.claim).toBe(false);
    const done = planHolderChange("done", held, facts(1000));
    expect(done.action === "push" && "landed" in done.claim).toBe(false);
  });

  it("only another worker's done claim that names this branch, for a task pending or failed here", () => {
    const done = (task: string, worker = other, l: ClaimRecord["landed"] = landed) => ({
      sha: `s-${task}`,
      claim: { ...seen("done", worker).claim, task_id: task, landed: l },
    });
    const claims = new Map<string, SeenClaim | { sha: string; invalid: string }>([
      ["t1", done("t1")],
      ["t2", done("t2")],
      ["t3", done("t3", me)],
      ["t4", done("t4", other, { branch: "other", commit: landed.commit })],
      ["t5", done("t5", other, null)],
      ["t6", { sha: "s-t6", invalid: "not a commit" }],
      ["t7", seen("held")],
      ["t8", done("t8")],
    ]);
    const tasks = [
      { id: "t1", status: "pending" },
      { id: "t2", status: "running" },
      { id: "t3", status: "pending" },
      { id: "t4", status: "pending" },
      { id: "t5", status: "pending" },
      { id: "t6", status: "pending" },
      { id: "t7", status: "pending" },
      { id: "t8", status: "failed" },
      { id: "t9", status: "pending" },
    ];
    expect(landingsToTakeIn(tasks, claims, "main", me).map((l) => l.taskId)).toEqual(["t1", "t8"]);
  });
});
