import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { quickExecutionState, quickPhaseState } from "./quick-parse.js";
import { parsePhaseState } from "./phase.js";
import { parseExecutionState } from "./execution.js";

// Values near the valid shapes, with every field sometimes wrong, missing or odd.
const iso = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("2026-11-20T09:00:00Z", "2026-11-20T09:00:00.123+01:00", "2024-02-29T23:59:59-05:30"),
  },
  fc
    .date({ min: new Date("1999-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    "2026-11-20T09:00:00Z",
    "2026-11-20T09:00:00+01:00",
    "2026-02-29T09:00:00Z",
    "2024-02-29T09:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-11-20T24:00:00Z",
    "2026-11-20T09:00Z",
    "2026-11-20",
    "",
    "yesterday",
  ),
);
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 15, arbitrary: arb }, { weight: 1, arbitrary: odd });
const phase = fc.constantFrom("REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "REFLECTION", "DEPLOY");
const id = fc.oneof(
  fc.constantFrom("a", "task-001", "t.2", "-x", ".x", "a/b", ""),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/),
);
const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const phaseDoc = fc
  .record({
    workflow_id: maybe(fc.constantFrom("wf-x", "")),
    started_at: maybe(iso),
    last_updated: maybe(iso),
    current_phase: maybe(phase),
    phase_status: maybe(fc.constantFrom("pending", "in_progress", "complete", "failed", "done")),
    completed_phases: maybe(
      fc.array(
        fc
          .record({ phase: maybe(phase), completed_at: maybe(iso), output: maybe(fc.string({ maxLength: 5 })) })
          .map(strip),
        { maxLength: 3 },
      ),
    ),
    user_checkpoints: maybe(
      fc.array(fc.record({ phase: maybe(phase), approved_at: maybe(iso) }).map(strip), { maxLength: 2 }),
    ),
    interruption_safe: maybe(fc.boolean()),
    schema_version: fc.oneof(fc.constant(undefined), fc.constant(1), fc.constant(2)),
    revision: fc.oneof(fc.constant(undefined), fc.integer({ min: -2, max: 5 }), fc.double()),
    request: maybe(fc.string({ maxLength: 5 })),
    inputs_hash: fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.constant("0123456789abcdef"),
      fc.constant("XYZ"),
    ),
    instance_id: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(undefined, "0123456789abcdef") },
      { weight: 1, arbitrary: fc.constantFrom(null, 42, "XYZ") },
    ),
    designs_requested: fc.oneof(fc.constant(undefined), fc.array(id, { maxLength: 3 }), odd),
    agent_reports: fc.oneof(
      fc.constant(undefined),
      fc.array(fc.constantFrom("memory/reports/demand.json", "x"), { maxLength: 2 }),
      odd,
    ),
    extra: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 3 })),
  })
  .map(strip);

const sha = fc.constantFrom(
  "0123456789abcdef0123456789abcdef01234567",
  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  "abc",
  "0123456789ABCDEF0123456789ABCDEF01234567",
  "",
);
const mergeDoc = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  odd,
  fc
    .record({
      state: maybe(fc.constantFrom("merging", "merged", "conflict", "done")),
      into: maybe(fc.constantFrom("main", "")),
      onto: fc.oneof(fc.constant(undefined), fc.constant(null), sha),
      head: fc.oneof(fc.constant(undefined), sha),
      commit: fc.oneof(fc.constant(undefined), fc.constant(null), sha),
      files: fc.oneof(
        fc.constant(undefined),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
        fc.constant([1]),
      ),
      reason: fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 3 }), fc.integer()),
      at: maybe(iso),
    })
    .map(strip),
);
const worktreeDoc = fc.oneof(
  { weight: 10, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: odd },
  {
    weight: 4,
    arbitrary: fc
      .record({
        path: maybe(fc.constantFrom(".dotagent/worktrees/t", "", "src", ".dotagent/worktrees/../../src")),
        branch: maybe(fc.constantFrom("dotagent/wf/t", "", "main", "dotagent/../main")),
        into: maybe(fc.constantFrom("main", "")),
        base: maybe(sha),
        merge: mergeDoc,
      })
      .map(strip),
  },
);

const taskDoc = fc
  .record({
    id: maybe(id),
    title: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 4 }), fc.integer()),
    status: maybe(fc.constantFrom("pending", "running", "complete", "failed", "dead", "skipped", "paused")),
    depends_on: fc.oneof(fc.constant(undefined), fc.array(id, { maxLength: 2 }), odd),
    attempts: fc.oneof(fc.constant(undefined), fc.integer({ min: -1, max: 4 }), fc.double()),
    max_attempts: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 4 })),
    started_at: maybe(iso),
    completed_at: fc.oneof(fc.constant(null), iso, odd),
    output: maybe(fc.string({ maxLength: 5 })),
    error: maybe(fc.string({ maxLength: 5 })),
    owner: fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      odd,
      fc
        .record({
          session: maybe(fc.string({ maxLength: 3 })),
          pid: fc.oneof(fc.integer({ min: -1, max: 99999 }), fc.double()),
          pid_start: maybe(fc.constantFrom("12345", "")),
          host: maybe(fc.constantFrom("dev", "")),
          at: maybe(iso),
        })
        .map(strip),
    ),
    worktree: worktreeDoc,
    skipped: fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: odd },
      {
        weight: 2,
        arbitrary: fc.record({ reason: maybe(fc.constantFrom("not needed", "")), at: maybe(iso) }).map(strip),
      },
    ),
  })
  .map(strip);

const executionDoc = fc
  .record({
    workflow_id: maybe(fc.constantFrom("wf-x", "")),
    updated_at: maybe(iso),
    interruption_safe: maybe(fc.boolean()),
    max_attempts: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 5 })),
    max_parallel: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 32 }) },
      { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -1, max: 40 }), fc.double(), fc.constant("3")) },
    ),
    tasks: maybe(fc.array(taskDoc, { maxLength: 4 })),
    plans: fc.oneof(
      fc.constant(undefined),
      fc.array(
        fc
          .record({
            round: maybe(fc.integer({ min: -1, max: 3 })),
            recorded_at: maybe(iso),
            tasks: maybe(fc.oneof(fc.integer({ min: -1, max: 5 }), fc.double())),
          })
          .map(strip),
        { maxLength: 2 },
      ),
      odd,
    ),
    isolation: fc.oneof(
      { weight: 10, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: odd },
      {
        weight: 3,
        arbitrary: fc
          .record({
            round: maybe(fc.integer({ min: -1, max: 2 })),
            mode: maybe(fc.constantFrom("worktree", "shared", "none")),
            branch: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom("main", "")),
            reason: fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 3 })),
            decided_at: maybe(iso),
          })
          .map(strip),
      },
    ),
  })
  .map(strip);

describe("quick parse is never looser than the zod schemas, and agrees on the value", () => {
  it("phase.json", () => {
    let accepted = 0;
    fc.assert(
      fc.property(phaseDoc, (doc) => {
        const quick = quickPhaseState(doc);
        if (quick === undefined) return;
        accepted++;
        const full = parsePhaseState(doc);
        expect(full.ok).toBe(true);
        if (full.ok) expect(quick).toEqual(full.value);
      }),
      { numRuns: 4000 },
    );
    // The generator does reach valid documents. The count is random: over 200 seeds of 4000 runs it
    // was 15–49 (median 35) here and at least 101 (median 127) for execution.json. The old bounds,
    // 25 and 100, sat inside that spread (25 failed CI once); these sit far below the lowest seen.
    expect(accepted).toBeGreaterThan(5);
  });

  it("execution.json", () => {
    let accepted = 0;
    fc.assert(
      fc.property(executionDoc, (doc) => {
        const quick = quickExecutionState(doc);
        if (quick === undefined) return;
        accepted++;
        const full = parseExecutionState(doc);
        expect(full.ok).toBe(true);
        if (full.ok) expect(quick).toEqual(full.value);
      }),
      { numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(50);
  });

  it("accepts the contract's hand-written examples", () => {
    expect(
      quickPhaseState({
        workflow_id: "wf-login",
        started_at: "2026-11-20T09:00:00Z",
        last_updated: "2026-11-20T10:30:00Z",
        current_phase: "ARCHITECTURE",
        phase_status: "in_progress",
        completed_phases: [
          { phase: "REQUIREMENTS", completed_at: "2026-11-20T10:00:00Z", output: "memory/reports/demand.json" },
        ],
        user_checkpoints: [{ phase: "REQUIREMENTS", approved_at: "2026-11-20T09:58:00Z" }],
        interruption_safe: true,
      }),
    ).toBeDefined();
    expect(
      quickExecutionState({
        workflow_id: "wf-login",
        updated_at: "2026-11-20T11:00:00Z",
        interruption_safe: true,
        max_attempts: 3,
        tasks: [
          {
            id: "task-001",
            title: "Login form",
            status: "running",
            depends_on: [],
            attempts: 1,
            started_at: "2026-11-20T10:40:00Z",
            completed_at: null,
            output: "memory/reports/tasks/task-001.json",
            error: null,
          },
        ],
      }),
    ).toBeDefined();
  });
});
