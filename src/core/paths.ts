// Where a workflow's files live, relative to the project root (SPEC §2).
export const REPORTS_DIR = "memory/reports";
export const STATE_DIR = "memory/state";
