// The cold half of the CLI: what only some commands need (tar for archives, prompts for questions
// to a person, globby for install, the JSON Schema export). The build stores it inside the one
// bundled file as a string that is compiled only when a command asks for it (load-cold.ts), so
// `status` and the hook never pay to compile ~300 KB they do not run.
export * as archive from "../archive/index.js";
export { askDecision } from "./ask.js";
export { findSourceRoot } from "../claude/install.js";
export { commitPaths, installClosing, uncommittedPaths } from "../install/next-steps.js";
export { CLIENT_PARTS } from "../clients/cold-parts.js";
export { exportJsonSchema, SCHEMA_NAMES } from "../schema/json-schema.js";
export { terminalAsker } from "./ask.js";
export { runCommand } from "./run-command.js";
export { runDoctor } from "./doctor-command.js";
export { RUN_HELP } from "../run/run-words.js";
export { showReports } from "../ops/show.js";
export { terminalStyle } from "../core/report-markdown.js";
export { runReportLines, writeRunReport } from "../ops/run-report.js";
export { forgetRun, resumeDecision, resumeRun } from "../ops/workflow-run.js";
export { listClaims } from "../ops/claims.js";
export { claimLines } from "./claims-view.js";
