// `dotagent doctor`'s `workflows` line (SPEC §12; issue 43): whether Claude Code's own Workflow
// tool is usable here and its runs recorded in the project's memory — dotagent's hook entries for
// it, an allow rule for the tool, the client not turned off by CLAUDE_CODE_DISABLE_WORKFLOWS — and
// a warning when the newest recorded run was made by a Claude Code version other than the one
// dotagent's reading of the layout was tested with. Reads only; runs no Claude Code (the version
// is the one the run's session transcript names).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLAUDE_TESTED_VERSION } from "../../core/claude-workflow-run.js";
import type { Check } from "../../core/doctor.js";
import { hasEntry, hookEntries, installTarget, type HookEntry, type Settings } from "../../claude/settings.js";
import { readWorkflowRuns } from "../../store/workflow-runs.js";
import { readProjectHead, readProjectText } from "../../store/read-file.js";
import type { ProjectPaths } from "../../store/project.js";

/** A settings file as JSON, or null (missing, unreadable, not an object: the settings check says why). */
function readJson(file: string): Settings | null {
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind !== "ok") return null;
  try {
    const value = JSON.parse(read.text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Settings) : null;
  } catch {
    return null;
  }
}

/** The hook entries that record Workflow runs: PostToolUse with Workflow in its matcher, and SubagentStart. */
const workflowEntries = (entries: readonly HookEntry[]) =>
  entries.filter(
    (e) =>
      (e.event === "PostToolUse" && (e.matcher ?? "").split("|").includes("Workflow")) || e.event === "SubagentStart",
  );

/** Whether a `permissions.allow` rule lets the Workflow tool run without asking (`Workflow`, `Workflow(*)`). */
function allowsWorkflow(settings: Settings | null): boolean {
  const allow = (settings?.permissions as { allow?: unknown } | undefined)?.allow;
  return Array.isArray(allow) && allow.some((rule) => rule === "Workflow" || rule === "Workflow(*)");
}

/** The Claude Code version a session transcript names (`"version":"x.y.z"` in its first lines), or null. */
function transcriptVersion(transcript: string): string | null {
  const head = readProjectHead(transcript, 256 * 1024, { links: "refuse" });
  if (head.kind !== "ok") return null;
  return /"version":"(\d+\.\d+\.\d+[\w.-]*)"/.exec(head.bytes.toString("utf8"))?.[1] ?? null;
}

/** The newest recorded run's client version, from its session's transcript (`<session folder>.jsonl`). */
function newestRunVersion(paths: ProjectPaths): { version: string; runId: string } | null {
  const runs = readWorkflowRuns(paths)
    .map((r) => ({ runId: r.runId, record: (r.record ?? {}) as { journal_path?: unknown; recorded_at?: unknown } }))
    .sort((a, b) => String(b.record.recorded_at ?? "").localeCompare(String(a.record.recorded_at ?? "")));
  for (const { runId, record } of runs) {
    const journal = record.journal_path;
    if (typeof journal !== "string" || !journal.endsWith(`/subagents/workflows/${runId}/journal.jsonl`)) continue;
    if (journal.split("/").includes("..")) continue;
    const folder = dirname(dirname(dirname(dirname(journal))));
    const version = transcriptVersion(`${folder}.jsonl`);
    if (version !== null) return { version, runId };
  }
  return null;
}

/**
 * The `workflows` checks of a Claude Code install here: [] when dotagent is not installed for it
 * (the install line says so). `plugin`: a dotagent plugin is installed (its hooks.json is the
 * build's, with every entry).
 */
export function workflowChecks(
  paths: ProjectPaths,
  found: { project: boolean; user: boolean; plugin: boolean; trusted: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Check[] {
  if (!found.project && !found.user && !found.plugin) return [];
  const projectDir = installTarget("project", paths.root);
  const userDir = installTarget("user", paths.root);
  const projectSettings = readJson(join(projectDir, "settings.json"));
  const localSettings = readJson(join(projectDir, "settings.local.json"));
  const userSettings = readJson(join(userDir, "settings.json"));
  const recordedBy = (scope: "project" | "user", settings: Settings | null, target: string) =>
    settings !== null && workflowEntries(hookEntries(scope, target)).every((e) => hasEntry(settings, e));
  const recorded =
    found.plugin ||
    (found.project && recordedBy("project", projectSettings, projectDir)) ||
    (found.user && recordedBy("user", userSettings, userDir));
  const off = env.CLAUDE_CODE_DISABLE_WORKFLOWS;
  if (off !== undefined && off !== "" && off !== "0" && off !== "false")
    return [
      {
        name: "workflows",
        client: "claude",
        status: "ok",
        message: "Claude Code's Workflow tool is turned off here (CLAUDE_CODE_DISABLE_WORKFLOWS): no run to record",
        fix: null,
      },
    ];
  if (!recorded)
    return [
      {
        name: "workflows",
        client: "claude",
        status: "warn",
        message:
          "Claude Code's Workflow runs are not recorded here: dotagent's PostToolUse entry on Workflow or its SubagentStart entry is missing (an install from before issue 43)",
        fix: "run `dotagent install`",
      },
    ];
  const userAllows = allowsWorkflow(userSettings);
  const projectAllows = allowsWorkflow(projectSettings) || allowsWorkflow(localSettings);
  const allowed = userAllows
    ? `Workflow allowed in ${join(userDir, "settings.json")}`
    : projectAllows && found.trusted
      ? "Workflow allowed in the project's settings"
      : projectAllows
        ? "Workflow allowed in the project's settings, which Claude Code ignores until it trusts the folder (`claude -p` refuses the tool)"
        : 'Workflow not allowed in any settings: Claude Code asks before each run, and `claude -p` refuses it ("Review dynamic workflow before running")';
  const memory = paths.stateDir;
  const where = existsSync(memory)
    ? "its runs are recorded in memory/state/workflow-runs/"
    : "its runs are recorded once memory/state/ exists (a workflow started here)";
  const checks: Check[] = [
    {
      name: "workflows",
      client: "claude",
      status: "ok",
      message: `Claude Code's Workflow tool: ${where}; ${allowed}`,
      fix: null,
    },
  ];
  const newest = newestRunVersion(paths);
  if (newest !== null && newest.version !== CLAUDE_TESTED_VERSION)
    checks.push({
      name: "workflows",
      client: "claude",
      status: "warn",
      message: `Claude Code ${newest.version} made the newest recorded run (${newest.runId}); dotagent reads the Workflow layout as Claude Code ${CLAUDE_TESTED_VERSION} writes it`,
      fix: "check the runs with `dotagent tasks --workflow-runs`; if agents or results are missing there, the layout changed: report it to dotagent",
    });
  return checks;
}
