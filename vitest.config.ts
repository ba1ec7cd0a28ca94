import { availableParallelism } from "node:os";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

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
  "test/copilot/journey.test.ts",
  "test/codex/journey.test.ts",
  "test/worktree-kill.test.ts",
  "test/package.test.ts",
  "test/remote-claims.test.ts",
  "src/run/runner-landing.test.ts",
  "src/run/runner-claims.test.ts",
  "src/run/runner-worker.test.ts",
  "test/demo.test.ts",
  "test/worktrees.test.ts",
  "test/claude/journey.test.ts",
  "test/rollback.test.ts",
  "test/once.test.ts",
  "test/hostile-landing.test.ts",
  "test/workflows.test.ts",
  "test/torture/kill.test.ts",
  "test/claude/claude-code-e2e.test.ts",
  "test/hostile-input-21b.test.ts",
  "test/torture/fault-injection.test.ts",
  "test/torture/langgraph.test.ts",
  "test/run-terminal.test.ts",
  "test/claude/workflow-terminal.test.ts",
  "test/person-gate.test.ts",
  "src/run/runner.test.ts",
  "test/allow-grammar-shells.test.ts",
  "test/hooks.test.ts",
  "test/torture/concurrency.test.ts",
  "test/decision-handed.test.ts",
  "src/run/runner-workflows.test.ts",
  "test/doctor.test.ts",
  "test/status-people.test.ts",
  "src/run/runner-person.test.ts",
  "test/tasks.test.ts",
  "test/hostile-input.test.ts",
  "test/torture/properties.test.ts",
  "test/install-uncommitted.test.ts",
  "test/cli.test.ts",
  "test/worktree-mend.test.ts",
  "src/archive/create-archive-kill.test.ts",
  "test/torture/ownership.test.ts",
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
 * Unit tests beside their code share their workers' module graph instead of paying a fresh worker
 * and a fresh import of src/ for each file (about half a second of CPU a file, issue 41): none of
 * them sets process state (the environment, listeners, the folder) or mocks a module. The rest keep
 * a worker of their own: test/ (the CLI host, the templates and cpu-cgroup.ts hold state per
 * file), the in-process runner, and the files that change process.env or stub vitest's globals.
 */
const SHARED_WORKER = ["src/**/*.test.ts"];
const OWN_WORKER = [
  "src/run/**/*.test.ts",
  "src/store/process-facts.test.ts",
  "src/store/authority.test.ts",
  "src/store/checkpoints-unreadable.test.ts",
  "src/claude/workflow-cap-hook.test.ts",
  "src/claude/workflow-runs.test.ts",
  "src/cli/std-write.test.ts",
  "src/clients/registry.test.ts",
  "src/langgraph/**/*.test.ts",
  "src/api/recoverable-query.test.ts",
  "src/core/time-ago.test.ts",
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
          include: ["test/**/*.test.ts", ...OWN_WORKER],
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
