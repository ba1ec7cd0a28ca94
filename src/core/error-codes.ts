// Every `error.code` dotagent answers with, once, as data: programs read the code from `--json`
// (`{"error": {"code", "message", "exit_code", …}}`) and the library's DotagentError, so the set is
// closed. `DotagentError` takes only an `ErrorCode`, so tsc refuses a code missing here;
// SPEC.md §10.1 is this table in words, and test/spec.test.ts keeps the two equal and this table
// free of codes nothing in src/ uses. A code's spelling never changes: add codes, never rename.

import { EXIT, type ExitCode } from "./errors.js";

export interface ErrorCodeEntry {
  /** The exit codes it is thrown with: one, or the few it takes by case (see `when`). */
  readonly exit: readonly ExitCode[];
  /** When it is answered, in one line of plain words. */
  readonly when: string;
}

const { refused, usage, invalid, locked, decide, interrupted } = EXIT;

export const ERROR_CODES = {
  agent_at_work: {
    exit: [refused],
    when: "a model records the end of a task whose executor is still at work (the hooks record it)",
  },
  agent_failed: { exit: [refused], when: "an agent of `dotagent run` failed; its phase is marked failed" },
  agent_invalid: { exit: [invalid], when: "an agent file has no usable front matter, name or body" },
  agent_running: { exit: [locked], when: "an agent started by an earlier `dotagent run` is still running" },
  agents_missing: {
    exit: [refused, usage],
    when: "the agent files `dotagent run` needs are not found (2: the `--agents` folder given holds no pm.md)",
  },
  api_unavailable: {
    exit: [refused],
    when: "the Claude API cannot be used right now (overloaded or rate-limited); nothing was marked failed",
  },
  api_unreachable: { exit: [refused], when: "the Claude API does not answer; nothing was started" },
  archive_invalid: { exit: [invalid], when: "an archive to restore cannot be read or its manifest is wrong" },
  archive_name: { exit: [refused], when: "a rollback finds no free name for the archive of what it moves" },
  archive_name_exhausted: {
    exit: [refused],
    when: "too many archives of the same workflow carry the same time in their name",
  },
  archive_not_found: { exit: [refused], when: "no archive has that name" },
  archive_unsafe: {
    exit: [invalid],
    when: "an archive holds an entry restore refuses (a link, a path outside memory/, too large); nothing was restored",
  },
  auth_failed: { exit: [refused], when: "Claude Code is not logged in, or the API refuses its key" },
  budget_reached: { exit: [refused], when: "`dotagent run` reached its cost cap (`--max-cost`)" },
  checkpoint_invalid: {
    exit: [refused, invalid],
    when: "a checkpoint is damaged: a library store's or LangGraph saver's file (3), a history checkpoint to roll back to (1)",
  },
  branch_diverged: {
    exit: [refused],
    when: "the workflow's branch here cannot take in the git remote's (a conflict, or uncommitted changes to the files it brings); nothing was changed",
  },
  claim_invalid: {
    exit: [invalid],
    when: "a task's claim on the git remote is not one dotagent wrote (not a commit of one claim.json, too large, not its schema); nothing was taken over",
  },
  clear_interrupted: {
    exit: [invalid],
    when: "a fresh start was cut off while clearing the old state; `dotagent resume` finishes it",
  },
  clear_refused: {
    exit: [refused],
    when: "a file under memory/ is not what the archive holds, so a fresh start clears nothing",
  },
  clearing_invalid: { exit: [invalid], when: "the clearing marker names an archive that was not verified" },
  concurrent_write: {
    exit: [refused],
    when: "a state file changed on disk while the command ran (written without the lock)",
  },
  data_invalid: {
    exit: [refused],
    when: "data given to a checkpoint store or the LangGraph saver is not plain JSON, or too large",
  },
  dependency_cycle: { exit: [refused], when: "tasks' dependencies would form a cycle" },
  duplicate_task: { exit: [refused], when: "`task add` of an id that already exists" },
  empty_plan: { exit: [refused], when: "a task plan with no tasks, or removing the plan's only task" },
  git_failed: { exit: [refused], when: "a git command failed, or the workflow's branch is gone" },
  git_locked: { exit: [locked], when: "a git lock file in a checkout is held, or cannot be told free" },
  git_sandboxed: {
    exit: [refused],
    when: "git could not be run from this shell (the system refused it: a sandbox), or cannot write the repository's .git from it; run the command outside the sandbox, or commit yourself",
  },
  gitignore_invalid: { exit: [refused], when: "the project's .gitignore cannot be read for an install" },
  helper_damaged: {
    exit: [refused],
    when: "the installed helper (dotagent.mjs) is cut short or edited: its cold half does not unpack; reinstall dotagent",
  },
  hooks_invalid: { exit: [refused], when: "Codex's hooks file is not valid JSON; dotagent changed nothing" },
  import_invalid: { exit: [usage], when: "a task plan to import is not the plan's shape" },
  import_unreadable: {
    exit: [refused],
    when: "the task plan file (or standard input) cannot be read, or is too large",
  },
  init_declined: { exit: [refused], when: "the person kept the existing workflow at `init`'s question" },
  inputs_changed: { exit: [refused], when: "a checkpoint store's folder was saved for other inputs" },
  install_source_invalid: {
    exit: [refused],
    when: "an agent file in the dotagent package lacks its front matter, name or description",
  },
  install_source_missing: { exit: [refused], when: "dotagent's own skills/ and agents/ are not found to install" },
  install_target_invalid: {
    exit: [refused],
    when: "where dotagent installs is a file, a link out of the project, or unreadable",
  },
  internal: {
    exit: [refused],
    when: "an unexpected error (a bug): run again with `--debug` for the stack, and report it",
  },
  interrupted: {
    exit: [interrupted],
    when: "`dotagent run` was stopped: Ctrl-C, or the person chose to stop at a question; any command's question on a terminal cancelled (Ctrl-C, Esc)",
  },
  io_failed: {
    exit: [refused],
    when: "a disk step (a move, a folder, the lock, an archive) failed with an errno; the state is still valid",
  },
  isolation_undecided: {
    exit: [refused, decide],
    when: "the main checkout has uncommitted changes: a person decides whether to commit them (5); still there after committing (1)",
  },
  locked: { exit: [locked], when: "the lock is held by another process" },
  merge_blocked: { exit: [refused], when: "a cut-off merge left changes in a checkout that are neither side's" },
  no_checkpoint: { exit: [refused], when: "no checkpoint of that name in the history" },
  no_designs: { exit: [refused], when: "`--designs` for a step that is not a choose step" },
  no_gate: { exit: [refused], when: "approving a phase that has no approval gate" },
  no_project: { exit: [refused], when: "`dotagent once` outside a project with memory/state" },
  no_rework: {
    exit: [refused],
    when: "rework where no check step sends work back, or its report does not say passed: false",
  },
  no_workflow: {
    exit: [refused, invalid],
    when: "no workflow here (3: `step run` with a phase.json that is not valid)",
  },
  not_a_command: { exit: [refused], when: "`step run` of a step that has no command" },
  not_approved: { exit: [refused], when: "completing a gated phase the person has not approved" },
  not_archivable: {
    exit: [refused],
    when: "a file under memory/ cannot be archived (a link, a special file, over 64 MiB); nothing was changed",
  },
  not_installed: { exit: [refused], when: "`install --uninstall` where dotagent is not installed" },
  not_planned: { exit: [refused], when: "a coordinator's item, or its plan, is not planned yet" },
  not_yours: {
    exit: [refused],
    when: "a model completes, fails or reworks a phase that dotagent moves itself from its agents' reports",
  },
  nothing_to_archive: { exit: [refused], when: "`archive` with no workflow state here" },
  op_record_invalid: { exit: [invalid], when: "an op record of `dotagent once` is not valid" },
  op_running: { exit: [locked], when: "the op of `dotagent once` is being run by another process" },
  path_is_link: { exit: [invalid], when: "a file dotagent appends to is a link" },
  path_outside_project: { exit: [invalid], when: "a write would land outside the project (through a link)" },
  person_not_answered: {
    exit: [refused],
    when: "from a model's shell: the person has not said yes to this gate, pick or decision",
  },
  phase_incomplete: {
    exit: [refused],
    when: "a phase's report is missing or not valid, so it cannot complete or be approved",
  },
  plan_changed: { exit: [refused], when: "a coordinator was planned with other items" },
  plan_not_recorded: { exit: [refused], when: "`task start` before the round's task plan is recorded" },
  query_running: {
    exit: [locked],
    when: "the Claude Code process of a recoverable query's earlier start is still running",
  },
  remote_failed: {
    exit: [refused],
    when: "the git remote of the claims failed, refused or did not answer in time; nothing local was lost",
  },
  report_missing: { exit: [refused], when: "`show` of a report that does not exist" },
  restore_incomplete: { exit: [refused], when: "an archive restore stopped part-way; running it again finishes it" },
  resume_unsettled: {
    exit: [refused],
    when: "the library's resume: the answers did not settle the plan in three rounds",
  },
  rollback_declined: { exit: [refused], when: "the person said no to the rollback; nothing changed" },
  rollback_forward: { exit: [refused], when: "a rollback to a phase after the current one" },
  rollback_journal_invalid: { exit: [invalid], when: "an unfinished rollback's journal is missing or cannot be read" },
  rollback_other_workflow: { exit: [refused], when: "the checkpoint belongs to another workflow" },
  rollback_outputs_missing: { exit: [refused], when: "the checkpoint needs reports no longer in the live tree" },
  rollback_pending: { exit: [refused], when: "another rollback is not finished" },
  run_complete: { exit: [refused], when: "a checkpoint store's run is already complete" },
  run_locked: { exit: [locked], when: "another `dotagent run` drives this workflow" },
  run_stuck: { exit: [refused], when: "`dotagent run` cannot go on by itself" },
  sdk_missing: { exit: [refused], when: "the Claude Agent SDK is not installed" },
  settings_invalid: {
    exit: [refused],
    when: ".claude/settings.json is not what Claude Code expects, or a link out of the project",
  },
  state_invalid: { exit: [invalid], when: "the workflow state is not valid" },
  state_path_invalid: { exit: [invalid], when: "a state folder (memory/, memory/state/, …) is a link or not a folder" },
  state_unreadable: { exit: [invalid], when: "a state file or folder cannot be read" },
  step_declined: { exit: [refused], when: "the person said no to running a step's command" },
  step_running: { exit: [locked], when: "a step's command is still running" },
  task_conflict: { exit: [refused], when: "importing a task id that exists with another title or depends_on" },
  task_has_dependants: { exit: [refused], when: "removing a task that other tasks depend on" },
  task_has_worktree: { exit: [refused], when: "removing a task that has a worktree (skip it instead)" },
  task_not_editable: {
    exit: [refused],
    when: "editing, removing or skipping a task that is running or complete, or editing or removing a skipped one",
  },
  task_refused: {
    exit: [refused],
    when: "a task cannot take that change in its status (e.g. starting a complete task)",
  },
  tasks_dead: { exit: [refused], when: "`dotagent run` stops at tasks that failed too often" },
  transition_pending: { exit: [refused], when: "a rollback while a change was cut off (`dotagent resume` first)" },
  unknown_dependency: { exit: [refused], when: "depends_on names a task that does not exist" },
  unknown_design: { exit: [refused], when: "picking a design that does not exist or is not valid" },
  unknown_step: { exit: [usage], when: "`step run` of a step not in the workflow" },
  unknown_task: { exit: [refused], when: "a task id that does not exist" },
  unsafe_path: {
    exit: [invalid],
    when: "the archive folder or a reports folder is a link or leads out of the project",
  },
  usage: { exit: [usage], when: "a wrong command line: an unknown option or command, a missing or bad argument" },
  workflow_complete: { exit: [refused], when: "a change to a complete workflow" },
  workflow_failed: { exit: [refused], when: "`dotagent run` stops at a failed workflow" },
  workflow_invalid: { exit: [invalid], when: "a workflow definition is refused" },
  workflow_run_ended: {
    exit: [refused],
    when: "`workflow-run resume` or `forget` of a Claude Code Workflow run that ended completed or forgotten",
  },
  workflow_run_live: {
    exit: [refused],
    when: "`workflow-run resume` of a Claude Code Workflow run whose launching Claude Code process still runs",
  },
  workflow_run_unknown: {
    exit: [refused],
    when: "`workflow-run resume` or `forget` of a run not kept in memory/state/workflow-runs/, or with no kept script",
  },
  worktree_busy: {
    exit: [refused],
    when: "a task's worktree path holds another branch's worktree or a folder dotagent did not make",
  },
  worktree_off_branch: {
    exit: [refused],
    when: "a task's worktree is on another branch and dotagent cannot bring its work back",
  },
  worktree_untrusted: { exit: [refused], when: "the folder at a task's worktree is not the one dotagent made" },
  write_failed: { exit: [refused], when: "a file could not be written (an errno); the previous state is intact" },
  wrong_phase: { exit: [refused], when: "a change for a phase or step that is not the current one" },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
