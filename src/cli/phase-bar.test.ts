import { describe, expect, it } from "vitest";
import { phaseBar, type BarInput } from "./phase-bar.js";

const DEVELOP = ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "REFLECTION"];
const done = (...ids: string[]) => ids.map((phase) => ({ phase }));

describe("phaseBar", () => {
  const cases: Array<[string, BarInput, string]> = [
    [
      "fresh start",
      { steps: DEVELOP, current: "REQUIREMENTS", status: "in_progress", completed: [] },
      "REQ … ─ ARCH · ─ IMPL · ─ VERIF · ─ REFL ·",
    ],
    [
      "tasks under way",
      {
        steps: DEVELOP,
        current: "IMPLEMENTATION",
        status: "in_progress",
        completed: done("REQUIREMENTS", "ARCHITECTURE"),
        tasks: { step: "IMPLEMENTATION", done: 1, total: 3 },
      },
      "REQ ✓ ─ ARCH ✓ ─ IMPL 1/3 ─ VERIF · ─ REFL ·",
    ],
    [
      "tasks step, no plan yet",
      {
        steps: DEVELOP,
        current: "IMPLEMENTATION",
        status: "pending",
        completed: done("REQUIREMENTS", "ARCHITECTURE"),
        tasks: { step: "IMPLEMENTATION", done: 0, total: 0 },
      },
      "REQ ✓ ─ ARCH ✓ ─ IMPL … ─ VERIF · ─ REFL ·",
    ],
    [
      "rework: verification went back",
      {
        steps: DEVELOP,
        current: "IMPLEMENTATION",
        status: "in_progress",
        completed: done("REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION"),
        tasks: { step: "IMPLEMENTATION", done: 0, total: 2 },
      },
      "REQ ✓ ─ ARCH ✓ ─ IMPL 0/2 ─ VERIF · ─ REFL ·",
    ],
    [
      "complete",
      { steps: DEVELOP, current: "REFLECTION", status: "complete", completed: done(...DEVELOP) },
      "REQ ✓ ─ ARCH ✓ ─ IMPL ✓ ─ VERIF ✓ ─ REFL ✓",
    ],
    [
      "failed",
      {
        steps: DEVELOP,
        current: "VERIFICATION",
        status: "failed",
        completed: done("REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION"),
      },
      "REQ ✓ ─ ARCH ✓ ─ IMPL ✓ ─ VERIF ✗ ─ REFL ·",
    ],
    [
      "a definition's own ids, one skipped",
      {
        steps: ["REPRO", "FIX", "TESTS", "deploy_staging"],
        current: "TESTS",
        status: "in_progress",
        completed: [{ phase: "REPRO", skipped: true }, { phase: "FIX" }],
      },
      "REPRO – ─ FIX ✓ ─ TESTS … ─ deplo ·",
    ],
    [
      "ids that would clash keep their full text",
      { steps: ["review_a", "review_b", "ship"], current: "review_a", status: "in_progress", completed: [] },
      "review_a … ─ review_b · ─ ship ·",
    ],
  ];
  it.each(cases)("%s", (_name, input, bar) => expect(phaseBar(input)).toBe(bar));
});
