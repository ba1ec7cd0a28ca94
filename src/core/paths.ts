// Where a workflow's files live, relative to the project root (SPEC §2).
export const REPORTS_DIR = "memory/reports";
export const STATE_DIR = "memory/state";

/**
 * The reports at fixed places (a choose step's designs, roundtable and final design, a tasks
 * step's execution.json and task reports) and develop's, by the names its skill and agents use.
 * Here, in a module that imports nothing, as flow.ts resolves develop when it loads (through
 * resolve-workflow.ts, which reads these).
 */
export const REPORT = {
  demand: `${REPORTS_DIR}/demand.json`,
  designsDir: `${REPORTS_DIR}/designs`,
  roundtable: `${REPORTS_DIR}/roundtable.json`,
  finalDesign: `${REPORTS_DIR}/final_design.json`,
  tasksDir: `${REPORTS_DIR}/tasks`,
  verification: `${REPORTS_DIR}/verification.json`,
  reflectionJson: `${REPORTS_DIR}/reflection.json`,
  reflectionMd: `${REPORTS_DIR}/reflection.md`,
  execution: `${STATE_DIR}/execution.json`,
} as const;
