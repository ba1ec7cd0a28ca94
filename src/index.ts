// dotagent as a library: the public API and nothing else (docs/api.md). openWorkflow does what the
// CLI does, under the same lock, with the same events, refusals and --json result objects.
export { openWorkflow } from "./api/workflow.js";
export type {
  Workflow,
  WorkflowOptions,
  WorkflowPhases,
  WorkflowTasks,
  DecideFn,
  StaleOption,
  ResumeCall,
  InitCall,
  OnceCall,
  PlannedTask,
  Decision,
  StatusResult,
  ValidateResult,
  ResumeResult,
  InitResult,
  PhaseResult,
  TaskResult,
  TaskView,
  TasksAddedResult,
  NextResult,
  TaskListResult,
  TaskShowResult,
  TaskDetail,
  TaskRow,
  TaskHolder,
  TaskMerge,
  TaskStatus,
  PlanEditResult,
  MergesKept,
  KeptMerge,
  HistoryResult,
  CheckpointSummary,
  CheckpointResult,
  RollbackResult,
  OnceResult,
} from "./api/workflow.js";
export { DotagentError, EXIT, type ExitCode } from "./core/errors.js";
export { PHASES, type Phase, type PhaseStatus } from "./core/phases.js";
export { parsePhaseState, type PhaseState } from "./schema/phase.js";
export { parseExecutionState, type ExecutionState, type Task } from "./schema/execution.js";
export type { ParseResult } from "./schema/common.js";
// Checkpoints for programs that call a model in a loop (docs/api.md).
export {
  checkpointStore,
  type CheckpointStore,
  type CheckpointStoreOptions,
  type SavedCheckpoint,
  type CheckpointInfo,
  type Completion,
  type StoreStatus,
} from "./api/checkpoint-store.js";
export { coordinator, type Coordinator, type Manifest, type PlannedItem } from "./api/coordinator.js";
export {
  recoverableQuery,
  resumePromptFor,
  type RecoverableQueryParams,
  type RecoverableResult,
  type QueryRecord,
  type QueryMessage,
  type QueryParams,
  type QuerySdk,
} from "./api/recoverable-query.js";
