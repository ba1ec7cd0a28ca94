// Machines sharing one git remote, for the runner's claims tests (runner-claims, runner-landing,
// runner-worker):
// a bare remote holding a project whose workflow waits at its design pick, copied per case, and
// clones of it, each a machine running the runner with the stand-in SDK.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { GITIGNORE_LINES } from "../claude/gitignore.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import type { ClaimWorker } from "../core/claims.js";
import { good, harness, person, type Harness, type Writer } from "./stand-in-sdk.test-support.js";
import { runWorkflow } from "./runner.js";

/** The good agents; the design plans `plan`; each executor writes `<task>.txt` in its worktree (a landing to count). */
export function planWriter(plan: ReadonlyArray<{ id: string; title: string; depends_on: string[] }>): Writer {
  return (agent, prompt, output) => {
    if (agent === "architect") return { name: /^Design name: (.*)$/m.exec(prompt)?.[1] ?? "", tasks: plan };
    if (agent === "executor") {
      const task = /^Task: (.*)$/m.exec(prompt)![1]!;
      const worktree = /^Worktree: (.*)$/m.exec(prompt)?.[1];
      if (worktree !== undefined) writeFileSync(join(worktree, `${task}.txt`), `${task}\n`);
    }
    return good(agent, prompt, output);
  };
}

/** git in `cwd` with an identity; its stdout, trimmed; a failure throws. */
export function sh(cwd: string, ...args: string[]): string {
  const run = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
}

export interface Seed {
  /** The temp folder every case lives in (the caller removes it). */
  readonly work: string;
  /** A copy of the seed's remote and `n` clones of it, the stand-in SDK writing `writer`'s reports. */
  cluster(n: number, writer?: Writer): { dir: string; remote: string; clones: Harness[] };
}

/** A bare remote holding a project whose workflow waits at its design pick (requirements approved, designs written by `writer`). */
export async function seedAtDesignPick(prefix: string, writer: Writer): Promise<Seed> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const seedRemote = join(work, "seed.git");
  sh(work, "init", "-q", "--bare", "-b", "main", seedRemote);
  const seed = harness(writer, (root) => {
    sh(root, "init", "-q", "-b", "main");
    writeFileSync(join(root, "README.md"), "# app\n");
    writeFileSync(join(root, ".gitignore"), `${GITIGNORE_LINES.join("\n")}\n`);
    sh(root, "add", "-A");
    sh(root, "commit", "-qm", "initial");
  });
  expect(await runWorkflow(seed.options({ approve: "ask", ask: person() }))).toMatchObject({ outcome: "decision" });
  sh(seed.root, "add", "-A");
  sh(seed.root, "commit", "-qm", "the workflow at its design pick");
  sh(seed.root, "push", "-q", seedRemote, "main");
  // No housekeeping process after each push (receive-pack's `git gc --auto`, a process that finds
  // nothing to do in so small a repository); the remote's copies keep it.
  sh(seedRemote, "config", "receive.autogc", "false");
  // One clone, copied for each machine (a folder copy instead of git's clone processes): its
  // remote's path, the only one in it that names the seed, pointed at the case's remote.
  const seedClone = join(work, "seed-clone");
  sh(work, "clone", "-q", seedRemote, seedClone);
  const cloneConfig = readFileSync(join(seedClone, ".git/config"), "utf8");
  if (!cloneConfig.includes(`url = ${seedRemote}\n`))
    throw new Error(`the seed's clone names its remote otherwise:\n${cloneConfig}`);
  let caseNo = 0;
  return {
    work,
    cluster(n, clonesWriter = writer) {
      const dir = join(work, `case-${++caseNo}`);
      const remote = join(dir, "remote.git");
      cpSync(seedRemote, remote, { recursive: true });
      const clones = Array.from({ length: n }, () =>
        harness(clonesWriter, (root) => {
          cpSync(seedClone, root, { recursive: true });
          writeFileSync(join(root, ".git/config"), cloneConfig.replace(`url = ${seedRemote}\n`, `url = ${remote}\n`));
        }),
      );
      return { dir, remote, clones };
    },
  };
}

/** Worker `n`'s identity: its id `n` repeated, host `host-n`, pid 100 + n. */
export const worker = (n: number): ClaimWorker => ({
  id: String(n).repeat(16).slice(0, 16),
  host: `host-${n}`,
  pid: 100 + n,
});

/** The SDK of `h`, its executors held until `hold` settles (so two runners overlap). */
export function held(h: Harness, hold: () => Promise<unknown>): QuerySdk<QueryMessage> {
  const inner = h.options().sdk!;
  return {
    query(args) {
      if (!/^Task: /m.test(String(args.prompt))) return inner.query(args);
      return (async function* () {
        await hold();
        yield* inner.query(args);
      })();
    },
  };
}

/** A renew timer that never fires (the tests renew by hand or not at all). */
export const noTimer = () => () => {};

/** A promise and the function that settles it. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The task ids the stand-in SDK's executor sessions were given, in order. */
export const executorsOf = (h: Harness) =>
  h.sessions.filter((s) => s.agent === "executor").map((s) => /^Task: (.*)$/m.exec(s.prompt)![1]!);
