import { availableParallelism } from "node:os";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";
import { useMemoryTmpdir } from "./test/support/test-tmpdir.js";

// The tests' temp folder on a memory file system where there is one (see there), before any worker starts.
useMemoryTmpdir();

/**
 * The longest test files, longest first: a clean clone has no timing cache, and a long file
 * started last would end the run alone. Ranked by the CPU each file costs, its processes included
 * (DOTAGENT_TEST_CPU and `node scripts/test-times.mjs --cpu`, issue 41: the suite is CPU-bound on
 * two cores, and CPU does not follow the machine's load as wall time does), the real clients'
 * journeys first (they also wait on their scripted executors); the journeys CI leaves out
 * (test/support/journey-tier.ts) taken off. Files not listed follow in vitest's own order.
 */
const LONGEST_FIRST = [
  "test/claude/terminal-journey.test.ts",
  "test/demo.test.ts",
  "test/copilot/journey.test.ts",
  "src/run/runner-landing.test.ts",
  "test/worktree-kill.test.ts",
  "test/remote-claims.test.ts",
  "test/worktrees.test.ts",
  "test/package.test.ts",
  "src/run/runner-claims.test.ts",
  "test/torture/langgraph.test.ts",
  "src/run/runner-worker.test.ts",
  "test/rollback.test.ts",
  "test/hostile-landing.test.ts",
  "test/once.test.ts",
  "test/torture/fault-injection.test.ts",
  "test/run-terminal.test.ts",
  "test/torture/concurrency.test.ts",
  "test/workflows.test.ts",
  "test/hooks.test.ts",
  "test/claude/claude-code-e2e.test.ts",
  "test/hostile-input-21b.test.ts",
  "test/torture/kill.test.ts",
  "test/torture/properties.test.ts",
  "src/run/runner.test.ts",
  "test/allow-grammar-shells.test.ts",
  "src/archive/create-archive-kill.test.ts",
  "test/torture/ownership.test.ts",
  "test/claude/write-guard-client.test.ts",
  "test/doctor.test.ts",
  "test/person-gate.test.ts",
  "test/hostile-input.test.ts",
  "src/run/runner-workflows.test.ts",
  "test/measure-output.test.ts",
  "src/run/runner-person.test.ts",
  "test/tasks.test.ts",
  "test/report.test.ts",
  "test/decision-handed.test.ts",
  "test/worktree-mend.test.ts",
  "test/torture/lock-holder.test.ts",
  "test/install-uncommitted.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

/**
 * Test files share their worker's module graph, and the CLI host (test/support/cli-host.ts), with
 * the files run before them in it, instead of paying a fresh worker for each file (about half a
 * second of CPU a file, and a host started again, issue 41). The per-file state is set up again
 * for each file: the setup files run again (isolated-env.ts: a state home, a Claude config folder
 * and clients' homes of the file's own), and the support modules' clean-ups run at each file's end
 * (test/support/file-end.ts: the templates, the owner process). A worker of its own stays for the
 * files that set process state (the environment, the folder, spies, vitest's globals) or run
 * commands or inspectors in process (the in-process runner, test/torture's fs hooks, scale.test.ts's
 * coverage), and for the real clients' journeys (they pass unedited as they have run).
 */
const SHARED_WORKER = ["src/**/*.test.ts", "test/**/*.test.ts"];
const OWN_WORKER = [
  "src/run/**/*.test.ts",
  "src/store/process-facts.test.ts",
  "src/ops/agent-end-reads.test.ts",
  "src/store/authority.test.ts",
  "src/store/checkpoints-unreadable.test.ts",
  "src/claude/workflow-cap-hook.test.ts",
  "src/claude/workflow-runs.test.ts",
  "src/cli/std-write.test.ts",
  "src/clients/registry.test.ts",
  "src/langgraph/**/*.test.ts",
  "src/api/recoverable-query.test.ts",
  "src/core/time-ago.test.ts",
  "test/torture/**/*.test.ts",
  "test/scale.test.ts",
  "test/api-workflow.test.ts",
  "test/checkout-question.test.ts",
  "test/hostile-input-21b.test.ts",
  "test/run-hostile.test.ts",
  "test/claude/workflow-tool.test.ts",
  "test/*/*journey*.test.ts",
  "test/*/*-e2e.test.ts",
];
const EXCLUDE = ["**/node_modules/**", "test/torture/long/**"];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: "shared", include: SHARED_WORKER, exclude: [...EXCLUDE, ...OWN_WORKER], isolate: false },
      },
      {
        extends: true,
        test: {
          name: "own",
          include: OWN_WORKER,
        },
      },
    ],
    // cpu-cgroup.ts: each file's CPU in a cgroup of its own when DOTAGENT_TEST_CPU names one (issue 41).
    setupFiles: ["test/support/isolated-env.ts", "test/support/cpu-cgroup.ts"],
    exclude: EXCLUDE,
    // A timeout catches a hang, never a slow machine: CI's load has made a 12 s test take 77 s, so
    // no test or hook has less than 10 minutes (the explicit ones too). Timing belongs to benchmarks.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    // Most test time is spent waiting on child processes (the built CLI, Claude Code, the scripted
    // model), so one worker more than the cores keeps them busy; vitest's default is one fewer.
    maxWorkers: Math.max(2, availableParallelism() + 1),
    sequence: { sequencer: LongestFirst },
  },
  define: { __DOTAGENT_VERSION__: JSON.stringify("0.0.0-test") },
});
