// The resume plan as the stable JSON object of SPEC.md §5 (`resume --json`, `status --json`, and
// the library's resume() and status()).
import type { ResumePlan } from "../core/plan-resume.js";

export type PlanJson = Omit<ResumePlan, "decisionKind" | "writes"> & { applied: boolean };

export function planJson(plan: ResumePlan, applied: boolean): PlanJson {
  // Field order as SPEC §5 shows it, so people reading the JSON find the situation first.
  return {
    situation: plan.situation,
    workflow_id: plan.workflow_id,
    phase: plan.phase,
    phase_status: plan.phase_status,
    completed_phases: plan.completed_phases,
    last_activity: plan.last_activity,
    last_activity_ago: plan.last_activity_ago,
    next: plan.next,
    in_flight: plan.in_flight,
    agents_in_flight: plan.agents_in_flight,
    repairs: plan.repairs,
    warnings: plan.warnings,
    errors: plan.errors,
    decision: plan.decision,
    applied,
  };
}
