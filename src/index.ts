// dotagent as a library: the pure core (phase table, phase machine, task operations, resume
// planner, validation), the schemas, and the store functions that read and write a project.
export { PHASES, PHASE_TABLE, REPORT, type Phase, type PhaseStatus, type PhaseSpec } from "./core/phases.js";
export { transition, provePhase, createWorkflow, inputsHash, isWorkflowComplete, type PhaseEvent, type TransitionResult } from "./core/transitions.js";
export { addTasks, startTask, completeTask, failTask, retryTask, readyTasks, recoverTasks, findCycle } from "./core/tasks.js";
export { importPlan, startPlannedTask, planStatus, currentRound, type PlanStatus, type ImportResult } from "./core/plans.js";
export { planResume, type ResumePlan, type NextAction, type Decision, type Situation, type Action } from "./core/plan-resume.js";
export { judgeOwner, describeOwner, TASK_LEASE_MS, type Owner, type OwnerVerdict, type OwnerFacts } from "./core/ownership.js";
export { validateState, type Problem, type ValidationReport } from "./core/validate.js";
export { judgeReport, type ReportSnapshot, type ReportState } from "./core/reports.js";
export type { StateSnapshot, FileRead } from "./core/snapshot.js";
export { DotagentError, EXIT } from "./core/errors.js";
export { parsePhaseState, phaseStateSchema, type PhaseState } from "./schema/phase.js";
export { parseExecutionState, executionStateSchema, type ExecutionState, type Task, type PlanRecord } from "./schema/execution.js";
export { parseTaskOutput, taskOutputSchema, type TaskOutput } from "./schema/task-output.js";
export { projectPaths, findProjectRoot, type ProjectPaths } from "./store/project.js";
export { loadSnapshot, withLock } from "./store/session.js";
export { loadSnapshotSync } from "./store/load-sync.js";
export { StateWriter } from "./store/state-writer.js";
export { readEvents, appendEvents } from "./store/events.js";
export { acquireLock, type LockHandle } from "./store/lock.js";
export { planOnce, type OpRecord, type OncePlan, type OnceRequest } from "./core/once.js";
export { runOnce, type OnceOutcome, type RunOnceOptions } from "./store/run-once.js";
export { readOpRecord, listOpenOps, type OpSummary } from "./store/op-records.js";
export { listCheckpoints, readCheckpoint, recordCheckpoint, type Checkpoint, type CheckpointMeta } from "./store/checkpoints.js";
export { planRollback, parseRollbackTarget, reportOwner, type RollbackPlan, type RollbackTarget } from "./core/rollback.js";
export { prepareRollback, rollBack, type PreparedRollback } from "./store/roll-back.js";
export { finishRollback, rollbackPending, type Archiver, type RollbackJournal } from "./store/rollback-journal.js";
export { createArchive } from "./archive/create-archive.js";
export { pruneArchives } from "./archive/prune-archives.js";
export { judgeRunningTasks, currentOwner, isPidAlive, processStartTime } from "./store/process-facts.js";
// Checkpoints for programs that call a model in a loop (docs/api-checkpoints.md).
export { checkpointStore, type CheckpointStore, type CheckpointStoreOptions, type SavedCheckpoint, type CheckpointInfo, type Completion, type StoreStatus } from "./api/checkpoint-store.js";
export { coordinator, type Coordinator, type Manifest, type PlannedItem } from "./api/coordinator.js";
export { recoverableQuery, resumePromptFor, type RecoverableQueryParams, type RecoverableResult, type QueryRecord, type QueryMessage, type QueryParams, type QuerySdk } from "./api/recoverable-query.js";
