// Task claims on the git remote (SPEC §23): reading a workflow's claim refs and pushing one claim
// commit as a compare-and-swap. The only atomic step is the remote's ref update: a push with
// `--force-with-lease=<ref>:<sha seen>` (empty: the ref must not exist) lands only if nobody moved
// the ref since, and a push killed midway leaves the ref as it was or as pushed, never broken
// (git updates a ref through its lock file after the objects are in).
//
// THREAT: everything fetched is written by other machines (or a person with push rights), so it is
// read as untrusted input: an object that is not a commit, a tree other than one regular file
// `claim.json`, a blob over MAX_CLAIM_BYTES (its size is asked before its content) or one that is
// not the schema (src/schema/claim.ts) is `invalid` with a one-line reason, never acted on. No path
// is taken from a claim; the task id comes from the ref's name and must be an id.
//
// The commit is built with plumbing (hash-object, mktree, commit-tree): no work tree, index or
// branch of the clone is touched, and no ref of it either: claims are listed with ls-remote and
// their objects fetched by id.
// Every network call has a time-out; git that fails, refuses or does not answer is `remote_failed`,
// one line naming the remote.
import {
  claimMessage,
  claimPrefix,
  claimRef,
  MAX_CARRIED_REPORT_BYTES,
  MAX_CLAIM_BYTES,
  type ClaimRecord,
  type SeenClaim,
} from "../core/claims.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { parseClaim } from "../schema/claim.js";
import { decodeJson, ID_PATTERN } from "../schema/json.js";
import { git, gitBytes, splitZ, type GitResult } from "./git.js";

/** How long one fetch or push of claims may take before it counts as the remote not answering. */
export const CLAIM_REMOTE_TIMEOUT_MS = 20_000;

export interface ClaimsRemote {
  /** A checkout (or git folder) of the project: where objects are built and claims fetched into. */
  readonly cwd: string;
  /** The name of a configured remote (`origin`). */
  readonly remote: string;
  readonly timeoutMs?: number;
}

/** A claim ref read back: a claim, or why it is not one (and so never acted on). */
export type ReadClaim = SeenClaim | { readonly sha: string; readonly invalid: string };

export type PushResult =
  { readonly pushed: true; readonly sha: string } | { readonly pushed: false; readonly why: string };

/** Every exit status is git's answer here; the caller reads it (a rejected push is not an error). */
const ANY_STATUS = Array.from({ length: 256 }, (_, i) => i);

/** Text from elsewhere made one short printable line. */
function oneLine(text: string, max = 200): string {
  const line = text.replace(/[\p{Cc}\p{Cf}]+/gu, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function checkRemoteName(remote: string): void {
  if (!ID_PATTERN.test(remote) || remote.includes(".."))
    throw new DotagentError(
      "usage",
      `${JSON.stringify(oneLine(remote, 40))} is not a remote's name dotagent uses for claims: letters, digits, '.', '_' or '-'`,
      EXIT.usage,
    );
}

function refOf(workflowId: string, taskId: string): string {
  const ref = claimRef(workflowId, taskId);
  if (!ref.ok) throw new DotagentError("usage", ref.why, EXIT.usage);
  return ref.ref;
}

/** A network git call: its time-out, and any failure to run or answer as `remote_failed`. */
/** Fetches these objects by id into no ref (SPEC §23: a fetch killed midway leaves no ref lock behind). */
function fetchById(r: ClaimsRemote, shas: readonly string[]) {
  return networkGit(r, [
    "fetch",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-recurse-submodules",
    "--quiet",
    r.remote,
    ...shas,
  ]);
}

function networkGit(r: ClaimsRemote, args: readonly string[]) {
  const what = `git ${args[0]}`;
  let result;
  try {
    result = git(r.cwd, args, { ok: ANY_STATUS, timeoutMs: r.timeoutMs ?? CLAIM_REMOTE_TIMEOUT_MS });
  } catch (error) {
    if (!(error instanceof DotagentError)) throw error;
    throw remoteFailed(r, what, error.message);
  }
  return result;
}

function remoteFailed(r: ClaimsRemote, what: string, why: string): DotagentError {
  const local = localCause(r);
  return new DotagentError(
    "remote_failed",
    local ??
      `the git remote ${r.remote} failed (${what}): ${oneLine(why)}; no claim was changed by this command and nothing local was lost`,
    EXIT.refused,
    { remote: r.remote },
  );
}

/**
 * What is wrong here rather than at the remote, asked of the local git only when a remote call
 * failed: the folder is in no git repository, or the clone has no remote of that name.
 */
function localCause(r: ClaimsRemote): string | undefined {
  try {
    if (git(r.cwd, ["rev-parse", "--git-dir"], { ok: ANY_STATUS }).status !== 0)
      return `${r.cwd} is not in a git repository: claims live on the git remote of a clone of the project`;
    if (git(r.cwd, ["remote", "get-url", r.remote], { ok: ANY_STATUS }).status !== 0)
      return `this clone has no git remote named ${r.remote} (\`git remote -v\` lists its remotes; --remote NAME picks another); no claim was changed`;
  } catch {
    // git itself would not run: the remote's failure says it.
  }
  return undefined;
}

function gitComplaint(stderr: string, stdout: string, status: number): string {
  return (
    (stderr || stdout)
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "" && !l.startsWith("To ") && !l.startsWith("From ")) ?? `exit ${status}`
  );
}

/** How many times a read starts again when a claim moved between listing it and fetching it. */
const READ_ROUNDS = 3;

/**
 * Reads the remote's claims of one workflow (or only `onlyTask`'s): `git ls-remote` for their
 * commits, one `git fetch` of those not here yet (by id, into no ref: no ref lock a killed fetch
 * could leave behind, none two processes in one clone could contend for), then each read as
 * untrusted: task id → its claim, or why it is invalid. Refs whose last component is not a task id
 * are left out (never read).
 */
export function fetchClaims(r: ClaimsRemote, workflowId: string, onlyTask?: string): Map<string, ReadClaim> {
  checkRemoteName(r.remote);
  if (onlyTask !== undefined) refOf(workflowId, onlyTask);
  else refOf(workflowId, "x");
  return readRemote(r, workflowId, onlyTask).claims;
}

/**
 * A take-in's read (SPEC §23 "Fewer network calls"): the remote's tip of `branch` (undefined: no
 * such branch there) and the workflow's claims, listed by one `git ls-remote` and their commits
 * fetched by one `git fetch` (by id, into no ref, as fetchClaims and fetchBranchTip do).
 */
export function fetchBranchAndClaims(
  r: ClaimsRemote,
  workflowId: string,
  branch: string,
): { tip: string | undefined; claims: Map<string, ReadClaim> } {
  checkRemoteName(r.remote);
  checkBranch(branch);
  refOf(workflowId, "x");
  return readRemote(r, workflowId, undefined, branch);
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

function readRemote(
  r: ClaimsRemote,
  workflowId: string,
  onlyTask: string | undefined,
  branch?: string,
): { tip: string | undefined; claims: Map<string, ReadClaim> } {
  const prefix = claimPrefix(workflowId);
  const head = branch === undefined ? undefined : `refs/heads/${branch}`;
  for (let round = 1; ; round++) {
    const listed = networkGit(r, [
      "ls-remote",
      r.remote,
      ...(head === undefined ? [] : [head]),
      onlyTask === undefined ? `${prefix}*` : `${prefix}${onlyTask}`,
    ]);
    if (listed.status !== 0)
      throw remoteFailed(r, "git ls-remote", gitComplaint(listed.stderr, listed.stdout, listed.status));
    const tips = new Map<string, string>();
    let tip: string | undefined;
    for (const line of listed.stdout.split("\n")) {
      const [sha, refname] = line.split("\t");
      if (sha === undefined || refname === undefined) continue;
      if (head !== undefined && refname === head) tip = sha;
      if (!refname.startsWith(prefix)) continue;
      const taskId = refname.slice(prefix.length);
      if (claimRef(workflowId, taskId).ok && (onlyTask === undefined || taskId === onlyTask)) tips.set(taskId, sha);
    }
    if (tip !== undefined && !COMMIT_ID.test(tip))
      throw remoteFailed(r, "git ls-remote", "an answer that is not a commit id");
    const wanted = [...tips.values(), ...(tip === undefined ? [] : [tip])];
    let types = objectTypes(r.cwd, wanted);
    const missing = [...new Set(wanted.filter((sha) => types.get(sha) === undefined))];
    let fetched: GitResult | undefined;
    if (missing.length > 0) {
      fetched = fetchById(r, missing);
      if (fetched.status !== 0) {
        // A claim or branch that moved since ls-remote is no longer a tip the remote hands out: list again.
        if (round < READ_ROUNDS) continue;
        throw remoteFailed(r, "git fetch", gitComplaint(fetched.stderr, fetched.stdout, fetched.status));
      }
      types = objectTypes(r.cwd, wanted);
    }
    if (tip !== undefined && types.get(tip) !== "commit") {
      // The branch moved since ls-remote: list again.
      if (round < READ_ROUNDS) continue;
      const why = fetched === undefined ? "" : gitComplaint(fetched.stderr, fetched.stdout, fetched.status);
      throw remoteFailed(r, "git fetch", why || "the branch's tip is not a commit");
    }
    return { tip, claims: readClaims(r.cwd, workflowId, tips, types) };
  }
}

/** Each object's type, in one `git cat-file --batch-check`; absent ones left out. */
function objectTypes(cwd: string, shas: readonly string[]): Map<string, string> {
  return new Map([...objectSizes(cwd, shas)].map(([sha, found]) => [sha, found.type]));
}

/**
 * Each listed claim read (SPEC §23 "Untrusted input"). One claim: its tree listed (`ls-tree -l`,
 * sizes with it), its blob read. Several (a take-in, `dotagent claims`): three calls in all, not
 * two a claim: their trees in one `cat-file --batch`, the blobs' sizes in one `--batch-check`, then
 * the blobs within the cap in one `--batch` (a size is still read before its content).
 */
function readClaims(
  cwd: string,
  workflowId: string,
  tips: ReadonlyMap<string, string>,
  types: ReadonlyMap<string, string>,
): Map<string, ReadClaim> {
  const claims = new Map<string, ReadClaim>();
  const commits = [...new Set([...tips.values()].filter((sha) => types.get(sha) === "commit"))];
  if (commits.length <= 1) {
    for (const [taskId, sha] of tips)
      claims.set(taskId, readClaim(cwd, workflowId, taskId, sha, types.get(sha) ?? "missing object"));
    return claims;
  }
  const trees = batchObjects(
    cwd,
    commits.map((sha) => `${sha}^{tree}`),
  );
  const blobOf = new Map<string, string>();
  for (const [i, sha] of commits.entries()) {
    const blob = trees[i]?.type === "tree" ? onlyClaimJson(trees[i]!.body, sha.length / 2) : undefined;
    if (blob !== undefined) blobOf.set(sha, blob);
  }
  const blobs = [...new Set(blobOf.values())];
  const sizes = objectSizes(cwd, blobs);
  const readable = blobs.filter((b) => (sizes.get(b)?.size ?? Infinity) <= MAX_CLAIM_BYTES);
  const texts = new Map<string, string>();
  for (const [i, object] of batchObjects(cwd, readable).entries())
    if (object?.type === "blob") texts.set(readable[i]!, object.body.toString("utf8"));
  for (const [taskId, sha] of tips) {
    const type = types.get(sha) ?? "missing object";
    if (type !== "commit") {
      claims.set(taskId, { sha, invalid: `it points at a ${oneLine(type, 20)}, not a commit` });
      continue;
    }
    const blob = blobOf.get(sha);
    const size = blob === undefined ? undefined : sizes.get(blob);
    if (blob === undefined || size?.type !== "blob") {
      claims.set(taskId, { sha, invalid: "its tree is not exactly one regular file claim.json" });
      continue;
    }
    const text = texts.get(blob);
    claims.set(
      taskId,
      text === undefined
        ? { sha, invalid: `claim.json is ${size.size} bytes, at most ${MAX_CLAIM_BYTES}` }
        : parsedClaim(workflowId, taskId, sha, text),
    );
  }
  return claims;
}

/** `cat-file --batch`'s objects for `specs`, in order; undefined for one git has not. */
function batchObjects(
  cwd: string,
  specs: readonly string[],
): Array<{ readonly type: string; readonly body: Buffer } | undefined> {
  if (specs.length === 0) return [];
  const out = gitBytes(cwd, ["cat-file", "--batch"], `${specs.join("\n")}\n`);
  if (out === undefined) throw new DotagentError("git_failed", `git cat-file --batch failed in ${cwd}`, EXIT.refused);
  const objects: Array<{ type: string; body: Buffer } | undefined> = [];
  let at = 0;
  for (let i = 0; i < specs.length; i++) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) break;
    const header = out.subarray(at, end).toString("utf8").split(" ");
    at = end + 1;
    const size = Number(header[2]);
    if (header.length !== 3 || !Number.isSafeInteger(size) || size < 0) {
      objects.push(undefined);
      continue;
    }
    objects.push({ type: header[1]!, body: out.subarray(at, at + size) });
    at += size + 1;
  }
  return objects;
}

/** The blob of a raw tree (ids of `idBytes`) that holds exactly one entry, a regular file `claim.json`; else undefined. */
function onlyClaimJson(tree: Buffer, idBytes: number): string | undefined {
  const space = tree.indexOf(0x20);
  const nul = tree.indexOf(0x00, space + 1);
  if (space < 0 || nul < 0 || tree.length - nul - 1 !== idBytes) return undefined;
  if (tree.subarray(0, space).toString("latin1") !== "100644") return undefined;
  if (tree.subarray(space + 1, nul).toString("latin1") !== "claim.json") return undefined;
  return tree.subarray(nul + 1).toString("hex");
}

/** Each object's type and size, in one `git cat-file --batch-check`; absent ones left out. */
function objectSizes(cwd: string, shas: readonly string[]): Map<string, { type: string; size: number }> {
  const found = new Map<string, { type: string; size: number }>();
  if (shas.length === 0) return found;
  const out = git(cwd, ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"], {
    input: `${shas.join("\n")}\n`,
    readOnly: true,
  }).stdout;
  for (const line of out.split("\n")) {
    const [sha, type, size] = line.split(" ");
    if (sha !== undefined && type !== undefined && size !== undefined && type !== "missing")
      found.set(sha, { type, size: Number(size) });
  }
  return found;
}

function readClaim(cwd: string, workflowId: string, taskId: string, sha: string, type: string): ReadClaim {
  const invalid = (why: string): ReadClaim => ({ sha, invalid: why });
  if (type !== "commit") return invalid(`it points at a ${oneLine(type, 20)}, not a commit`);
  const entries = splitZ(git(cwd, ["ls-tree", "-l", "-z", sha], { readOnly: true }).stdout);
  const entry = entries.length === 1 ? /^100644 blob ([0-9a-f]{40,64}) +(\d+)\tclaim\.json$/.exec(entries[0]!) : null;
  if (entry === null) return invalid("its tree is not exactly one regular file claim.json");
  const blob = entry[1]!;
  const size = Number(entry[2]);
  if (!(size <= MAX_CLAIM_BYTES)) return invalid(`claim.json is ${size} bytes, at most ${MAX_CLAIM_BYTES}`);
  return parsedClaim(workflowId, taskId, sha, git(cwd, ["cat-file", "blob", blob], { readOnly: true }).stdout);
}

/** A claim.json's text checked: JSON, the schema, its own ref's workflow and task. */
function parsedClaim(workflowId: string, taskId: string, sha: string, text: string): ReadClaim {
  const invalid = (why: string): ReadClaim => ({ sha, invalid: why });
  const json = decodeJson(text);
  if (!json.ok) return invalid(`claim.json is ${json.message}`);
  const parsed = parseClaim(json.value);
  if (!parsed.ok) {
    const first = parsed.problems[0]!;
    return invalid(`claim.json: ${first.path === "" ? "" : `${first.path}: `}${first.message}`);
  }
  const claim = parsed.value;
  if (claim.workflow_id !== workflowId || claim.task_id !== taskId)
    return invalid(`claim.json names ${oneLine(claim.workflow_id, 40)}/${oneLine(claim.task_id, 40)}, not its own ref`);
  return { sha, claim };
}

/** The one-line refusal of an invalid claim, with what a person may do about it. */
export function claimInvalidError(remote: string, workflowId: string, taskId: string, why: string): DotagentError {
  const ref = refOf(workflowId, taskId);
  return new DotagentError(
    "claim_invalid",
    `the claim ${ref} on remote ${remote} is not one dotagent wrote (${oneLine(why)}); nothing was taken over; for the person: once checked, remove it with git push ${remote} --delete ${ref}`,
    EXIT.invalid,
    { remote, ref },
  );
}

/**
 * Builds a claim's commit (plumbing only: no work tree, index or ref): its tree exactly
 * `claim.json`, its parent the commit it replaces (`expect`), and for a `done` claim that carries
 * the task's report a second parent, `carrier`, whose tree is exactly `report.json`.
 */
function claimCommit(cwd: string, claim: ClaimRecord, expect: string | null, carrier?: string): string {
  const blob = git(cwd, ["hash-object", "-w", "--stdin"], { input: `${JSON.stringify(claim)}\n` }).stdout.trim();
  const tree = git(cwd, ["mktree"], { input: `100644 blob ${blob}\tclaim.json\n` }).stdout.trim();
  const parents = [...(expect === null ? [] : ["-p", expect]), ...(carrier === undefined ? [] : ["-p", carrier])];
  return git(cwd, ["commit-tree", tree, ...parents, "-m", claimMessage(claim)]).stdout.trim();
}

/** The commit that carries a task's report with its `done` claim: a root commit whose tree is exactly `report.json`. */
export function reportCarrier(cwd: string, workflowId: string, taskId: string, report: string): string {
  const blob = git(cwd, ["hash-object", "-w", "--stdin"], { input: report }).stdout.trim();
  const tree = git(cwd, ["mktree"], { input: `100644 blob ${blob}\treport.json\n` }).stdout.trim();
  return git(cwd, ["commit-tree", tree, "-m", `dotagent report ${workflowId}/${taskId}\n`]).stdout.trim();
}

/**
 * Pushes `claim` as the new commit of its task's ref, only if the remote's ref is still `expect`
 * (null: it must not exist). The new commit's parent is `expect`, so the push is a fast-forward.
 * A rejection (`!`: the lease did not match, or the remote refused) is `pushed: false` with git's
 * reason; the caller fetches again to tell a lost race from a refusal.
 */
export function pushClaim(r: ClaimsRemote, claim: ClaimRecord, expect: string | null): PushResult {
  checkRemoteName(r.remote);
  const ref = refOf(claim.workflow_id, claim.task_id);
  const commit = claimCommit(r.cwd, claim, expect);
  const run = networkGit(r, [
    "push",
    "--porcelain",
    "--atomic",
    "--no-verify",
    `--force-with-lease=${ref}:${expect ?? ""}`,
    r.remote,
    `${commit}:${ref}`,
  ]);
  const line = run.stdout.split("\n").find((l) => l.split("\t")[1]?.endsWith(`:${ref}`));
  if (line === undefined) throw remoteFailed(r, "git push", gitComplaint(run.stderr, run.stdout, run.status));
  if (line.startsWith("!")) return { pushed: false, why: oneLine(line.split("\t")[2] ?? "rejected") };
  if (run.status !== 0) throw remoteFailed(r, "git push", gitComplaint(run.stderr, run.stdout, run.status));
  return { pushed: true, sha: commit };
}

/** Whether dotagent lands through the remote on this branch: a name of git's rules in the characters a claim's `landed.branch` takes. */
export function landsThroughRemote(branch: string): boolean {
  return (
    /^[A-Za-z0-9._/-]{1,255}$/.test(branch) &&
    !branch.includes("..") &&
    !branch.startsWith("-") &&
    !branch.startsWith("/") &&
    !branch.endsWith("/") &&
    !branch.endsWith(".lock") &&
    !branch.includes("//")
  );
}

/** A branch name dotagent pushes or fetches, checked before git sees it. */
function checkBranch(branch: string): void {
  if (!landsThroughRemote(branch))
    throw new DotagentError(
      "usage",
      `${JSON.stringify(oneLine(branch, 60))} is not a branch dotagent lands through the remote`,
      EXIT.usage,
    );
}

/**
 * The remote's tip of `branch` (undefined: no such branch there), its commits fetched into this
 * clone by id (into no ref, as claims are).
 */
export function fetchBranchTip(r: ClaimsRemote, branch: string): string | undefined {
  checkRemoteName(r.remote);
  checkBranch(branch);
  for (let round = 1; ; round++) {
    const listed = networkGit(r, ["ls-remote", r.remote, `refs/heads/${branch}`]);
    if (listed.status !== 0)
      throw remoteFailed(r, "git ls-remote", gitComplaint(listed.stderr, listed.stdout, listed.status));
    const sha = listed.stdout
      .split("\n")
      .map((l) => l.split("\t"))
      .find(([, name]) => name === `refs/heads/${branch}`)?.[0];
    if (sha === undefined) return undefined;
    if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha))
      throw remoteFailed(r, "git ls-remote", "an answer that is not a commit id");
    if (objectTypes(r.cwd, [sha]).get(sha) === "commit") return sha;
    const run = fetchById(r, [sha]);
    if (run.status === 0 && objectTypes(r.cwd, [sha]).get(sha) === "commit") return sha;
    // The branch moved since ls-remote: list again.
    if (round >= READ_ROUNDS) throw remoteFailed(r, "git fetch", gitComplaint(run.stderr, run.stdout, run.status));
  }
}

/** What one landing pushes: the workflow's branch to `commit` (leased on `expect`), and the task's `done` claim. */
export interface LandingPush {
  readonly branch: string;
  readonly commit: string;
  /** The remote branch's tip last fetched: the push lands only if it is still there. */
  readonly expect: string;
  readonly claim: ClaimRecord;
  /** The claim commit it replaces (the holder's `held`). */
  readonly claimExpect: string;
  /** The task's report, carried by the claim's commit (absent: none carried). */
  readonly report?: string;
}

/**
 * The landing through the remote (SPEC §23): one `git push --atomic` of the workflow's branch and
 * the claim's `done` commit, each with its lease: both land or neither. `pushed: false`: the
 * remote rejected it (a branch or claim that moved, or the remote's refusal), `which` the refs.
 */
export function pushLanding(
  r: ClaimsRemote,
  landing: LandingPush,
):
  | { readonly pushed: true; readonly sha: string }
  | { readonly pushed: false; readonly why: string; readonly which: string[] } {
  checkRemoteName(r.remote);
  checkBranch(landing.branch);
  const ref = refOf(landing.claim.workflow_id, landing.claim.task_id);
  const head = `refs/heads/${landing.branch}`;
  const carrier =
    landing.report === undefined
      ? undefined
      : reportCarrier(r.cwd, landing.claim.workflow_id, landing.claim.task_id, landing.report);
  const commit = claimCommit(r.cwd, landing.claim, landing.claimExpect, carrier);
  const run = networkGit(r, [
    "push",
    "--porcelain",
    "--atomic",
    "--no-verify",
    `--force-with-lease=${head}:${landing.expect}`,
    `--force-with-lease=${ref}:${landing.claimExpect}`,
    r.remote,
    `${landing.commit}:${head}`,
    `${commit}:${ref}`,
  ]);
  const lines = run.stdout.split("\n").filter((l) => /:(refs\/\S+)$/.test(l.split("\t")[1] ?? ""));
  const of = (target: string) => lines.find((l) => l.split("\t")[1]?.endsWith(`:${target}`));
  const mine = [of(head), of(ref)];
  if (mine.some((l) => l === undefined))
    throw remoteFailed(r, "git push", gitComplaint(run.stderr, run.stdout, run.status));
  const rejected = [head, ref].filter((_, i) => mine[i]!.startsWith("!"));
  if (rejected.length > 0) {
    const first =
      mine.find((l) => l!.startsWith("!") && !/atomic/.test(l!.split("\t")[2] ?? "")) ??
      mine.find((l) => l!.startsWith("!"));
    return { pushed: false, why: oneLine(first!.split("\t")[2] ?? "rejected"), which: rejected };
  }
  if (run.status !== 0) throw remoteFailed(r, "git push", gitComplaint(run.stderr, run.stdout, run.status));
  return { pushed: true, sha: commit };
}

/**
 * The report a `done` claim carries (its commit's second parent, a commit whose tree is exactly
 * one regular file `report.json`), read as untrusted: its size asked before its content. The
 * caller parses and checks it; no path is taken from it.
 */
export function readCarriedReport(cwd: string, claimSha: string): { text: string } | { invalid: string } {
  const parent = git(cwd, ["rev-parse", "--verify", "-q", `${claimSha}^2^{commit}`], { ok: [1, 128], readOnly: true });
  if (parent.status !== 0) return { invalid: "its claim commit carries no report" };
  const sha = parent.stdout.trim();
  const entries = splitZ(git(cwd, ["ls-tree", "-l", "-z", sha], { readOnly: true }).stdout);
  const entry = entries.length === 1 ? /^100644 blob ([0-9a-f]{40,64}) +(\d+)\treport\.json$/.exec(entries[0]!) : null;
  if (entry === null) return { invalid: "the report it carries is not exactly one regular file report.json" };
  const size = Number(entry[2]);
  if (!(size <= MAX_CARRIED_REPORT_BYTES))
    return { invalid: `the report it carries is ${size} bytes, at most ${MAX_CARRIED_REPORT_BYTES}` };
  return { text: git(cwd, ["cat-file", "blob", entry[1]!], { readOnly: true }).stdout };
}

/**
 * The local `branch`'s commit (undefined: no such branch), and the remote's tip of `branch` this
 * clone last took in or pushed (SPEC §23 "A person rewrites the workflow's branch"): dotagent's own
 * ref `refs/dotagent/seen/<remote>/<branch>` (`recorded`), else the remote-tracking branch the
 * clone was made with; undefined when neither exists. One `git for-each-ref` reads the three refs.
 */
export function branchAndSeenTip(
  cwd: string,
  remote: string,
  branch: string,
): {
  readonly local: string | undefined;
  readonly seen: { readonly sha: string; readonly recorded: boolean } | undefined;
} {
  checkRemoteName(remote);
  checkBranch(branch);
  const [head, own, tracking] = [`refs/heads/${branch}`, seenRef(remote, branch), `refs/remotes/${remote}/${branch}`];
  const tips = new Map<string, string>();
  const out = git(cwd, ["for-each-ref", "--format=%(objectname) %(objecttype) %(refname)", head, own, tracking], {
    readOnly: true,
  }).stdout;
  for (const line of out.split("\n")) {
    const [sha, type, name] = line.split(" ");
    // Exact names only (a pattern also lists the refs under it); a ref that is not a commit counts as absent.
    if (sha !== undefined && type === "commit" && name !== undefined) tips.set(name, sha);
  }
  const seen = tips.has(own)
    ? { sha: tips.get(own)!, recorded: true }
    : tips.has(tracking)
      ? { sha: tips.get(tracking)!, recorded: false }
      : undefined;
  return { local: tips.get(head), seen };
}

/** Records `sha` as the remote's tip of `branch` this clone last took in or pushed (a local ref, never pushed). */
export function recordSeenTip(cwd: string, remote: string, branch: string, sha: string): void {
  checkRemoteName(remote);
  checkBranch(branch);
  git(cwd, ["update-ref", "-m", "dotagent: the remote's tip last seen", seenRef(remote, branch), sha]);
}

const seenRef = (remote: string, branch: string) => `refs/dotagent/seen/${remote}/${branch}`;
