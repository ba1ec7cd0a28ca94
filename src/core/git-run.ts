// What one git call's `spawnSync` result means (SPEC §19 "Git in a sandbox"). Node reports a
// child it could not start and a child that ran in the same shape (`error`, `status`, `signal`),
// and a sandbox muddies it further. Measured under Codex's default sandbox (test/codex/NOTES.md):
// its seccomp filter refuses `shutdown()`, so when git's stdin is a pipe Node closes it in vain
// and answers `error: EPERM` beside git's own `status: 0` and complete output; with input, git
// waits on stdin for an end that never comes. A refusal is therefore never "git is not
// installed" (that is ENOENT alone), and a result a refusal touched is not trusted as git's answer.
// Pure: the shell (src/store/git.ts) spawns and hands the result here.

/** The fields of a `spawnSync` result this reads. */
export interface SpawnFacts {
  readonly status: number | null;
  readonly signal: string | null;
  readonly error?: { readonly code?: string | undefined; readonly message: string } | undefined;
}

export type GitRun =
  /** git ran and exited: its status is its answer. */
  | { readonly kind: "ran"; readonly status: number }
  /** No git to run (ENOENT). */
  | { readonly kind: "missing" }
  /** The system refused the call (EPERM, EACCES): a sandbox, or a git that may not be executed. */
  | { readonly kind: "refused"; readonly code: string }
  /** It could not run or finish for another reason (a signal, a timeout, output past the buffer). */
  | { readonly kind: "failed"; readonly why: string };

const REFUSALS = new Set(["EPERM", "EACCES"]);

export function classifyGitRun(run: SpawnFacts): GitRun {
  const code = run.error?.code;
  if (code === "ENOENT") return { kind: "missing" };
  if (code !== undefined && REFUSALS.has(code)) return { kind: "refused", code };
  if (run.error !== undefined) return { kind: "failed", why: code ?? run.error.message };
  if (run.signal !== null) return { kind: "failed", why: `killed by ${run.signal}` };
  if (run.status === null) return { kind: "failed", why: "no exit status" };
  return { kind: "ran", status: run.status };
}

/** The words for a call that did not give git's answer, after "git <cmd> could not run in <dir>: ". */
export function gitRunProblem(run: Exclude<GitRun, { kind: "ran" }>): string {
  switch (run.kind) {
    case "missing":
      return "git is not installed (not found on PATH)";
    case "refused":
      return `the system refused it (${run.code}): a sandbox keeps this shell from running git; run the command outside the sandbox (approve it when asked), or in your own terminal`;
    case "failed":
      return run.why;
  }
}
