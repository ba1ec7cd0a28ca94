// `dotagent doctor`'s checks of Claude Code (--client claude): its installs (project, user,
// plugin) and whether it trusts the folder, every settings file it reads parses, and the settings
// that change how /develop starts (a PreSkillShellCommand hook, a mode that runs any command).
// Reads only.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { checkClaudeMode, type Check } from "../../core/doctor.js";
import { count } from "../../core/words.js";
import { inspectInstall, inspectPlugins } from "../../claude/inspect-install.js";
import { HOOK_ENTRY, installTarget } from "../../claude/settings.js";
import { claudeTrustCheck } from "../../claude/trust.js";
import { workflowChecks } from "./workflow-doctor.js";
import { dotagentSkillLines, skillShellHooks } from "../../claude/skill-shell-hooks.js";
import { readProjectText } from "../../store/read-file.js";
import type { ProjectPaths } from "../../store/project.js";
import type { ClientDoctor } from "../adapter.js";
import { ADAPTERS, DEFAULT_CLIENT } from "../index.js";

/**
 * Claude Code's install checks (project, user, plugin) and, for a project install, whether Claude
 * Code trusts the folder (it runs no project hook until then); [] when there is no install.
 */
function claudeInstallChecks(paths: ProjectPaths, version: string): Check[] {
  const project = installTarget("project", paths.root);
  const user = installTarget("user", paths.root);
  const here = inspectInstall("project", project, version);
  const trust = here.length > 0 ? claudeTrustCheck(paths.root) : null;
  const users = user === project ? [] : inspectInstall("user", user, version);
  const plugins = inspectPlugins(user, version);
  const installs = [...here, ...(trust === null ? [] : [trust]), ...users, ...plugins];
  if (installs.length === 0) return [];
  // Claude Code's own Workflow runs (issue 43): usable, allowed and recorded here.
  const found = {
    project: here.length > 0,
    user: users.length > 0,
    plugin: plugins.some((c) => c.name === "install" && c.status !== "fail"),
    trusted: trust?.status === "ok",
  };
  return [...installs, ...workflowChecks(paths, found)];
}

/** No install found: for Claude Code (`--client claude`), or for any client. */
function notInstalled(paths: ProjectPaths, anyClient: boolean): Check {
  const others = ADAPTERS.filter((a) => a !== DEFAULT_CLIENT);
  const where = `no install in ${installTarget("project", paths.root)} or ${installTarget("user", paths.root)}, and no dotagent plugin`;
  return anyClient
    ? {
        name: "install",
        status: "fail",
        message: `dotagent is not installed here for any client: for Claude Code ${where}; ${others.map((a) => `no ${a.manifest} (${a.name})`).join(", ")}`,
        fix: `run \`dotagent install\` in the project for Claude Code (${others.map((a, i) => `\`${i === 0 ? "dotagent install " : ""}--client ${a.id}\` for ${a.name}`).join(", ")})`,
      }
    : {
        name: "install",
        status: "fail",
        message: `dotagent is not installed for Claude Code: ${where}`,
        fix: "run `dotagent install` in the project (or `dotagent install --scope user`, or install the plugin)",
      };
}

/**
 * Every settings file Claude Code reads for this project must parse, or Claude Code reports it.
 * Read the bounded, non-blocking way (a FIFO is refused, never waited on); a link is followed as
 * Claude Code does, and a link to nothing is a problem, not "no settings".
 */
function settingsChecks(paths: ProjectPaths): Check[] {
  const files = [
    join(paths.root, ".claude", "settings.json"),
    join(paths.root, ".claude", "settings.local.json"),
    join(installTarget("user", paths.root), "settings.json"),
  ].filter((f, i, all) => all.indexOf(f) === i);
  const bad: Check[] = [];
  let found = 0;
  for (const file of files) {
    const problem = settingsProblem(file);
    if (problem === "missing") continue;
    found++;
    if (problem !== null)
      bad.push({
        name: "settings",
        status: "fail",
        message: `${file} ${problem}`,
        fix: `fix ${file} (Claude Code cannot read it either), then run \`dotagent install\``,
      });
  }
  if (bad.length > 0) return bad;
  return [
    {
      name: "settings",
      status: "ok",
      message: found === 0 ? "no settings.json yet" : `${count(found, "settings file")} parse${found === 1 ? "s" : ""}`,
      fix: null,
    },
  ];
}

/** Why a settings file is not a JSON object, "missing" when there is none, or null when it is fine. */
function settingsProblem(file: string): string | "missing" | null {
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind === "missing") return isLink(file) ? "is a symbolic link to a file that does not exist" : "missing";
  if (read.kind === "refused") return read.reason;
  try {
    const value = JSON.parse(read.text) as unknown;
    return value === null || typeof value !== "object" || Array.isArray(value)
      ? "does not parse: not a JSON object"
      : null;
  } catch (error) {
    return `does not parse: ${(error as Error).message.split("\n")[0]}`;
  }
}

/** Where Claude Code reads managed (organisation) settings. */
const MANAGED_SETTINGS =
  process.platform === "darwin"
    ? "/Library/Application Support/ClaudeCode/managed-settings.json"
    : "/etc/claude-code/managed-settings.json";

/**
 * In every settings file Claude Code reads: a PreSkillShellCommand hook (Claude Code 2.1.332) that
 * applies to dotagent's skill lines (/develop then starts from a helper call), and a permission
 * mode or rule that lets the model run any command without the person (SPEC §11, §12).
 */
function skillShellChecks(paths: ProjectPaths): Check[] {
  const files = [
    join(installTarget("user", paths.root), "settings.json"),
    join(paths.root, ".claude", "settings.json"),
    join(paths.root, ".claude", "settings.local.json"),
    process.env.DOTAGENT_MANAGED_SETTINGS || MANAGED_SETTINGS,
  ].filter((f, i, all) => all.indexOf(f) === i);
  const lines = dotagentSkillLines(
    join(installTarget("project", paths.root), "skills", "checkpoint", "scripts", HOOK_ENTRY),
  );
  const checks: Check[] = [];
  for (const file of files) {
    const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
    if (read.kind !== "ok") continue;
    let settings: unknown;
    try {
      settings = JSON.parse(read.text);
    } catch {
      continue; // settingsChecks reports it
    }
    checks.push(...checkClaudeMode(settings, file));
    for (const hook of skillShellHooks(settings, lines)) {
      const what =
        hook.verdict === "refuses"
          ? `refuses /develop's plan line (a ${hook.type} hook counts as a refusal there)`
          : `runs on /develop's plan line (\`${hook.shown}\`) and may refuse it`;
      checks.push({
        name: "skill-shell",
        status: "warn",
        message: `PreSkillShellCommand hook ${hook.at} in ${file} ${what}`,
        fix: "nothing needed: /develop then has the model run `dotagent resume --start` (one more step); to keep the plan in the skill, exclude lines running dotagent.cjs from that hook",
      });
    }
  }
  return checks;
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Claude Code in the project at `paths`: installed when an install or a plugin is found; its checks. */
export function claudeDoctor(paths: ProjectPaths, version: string): ClientDoctor {
  let install: Check[] | undefined;
  const installChecks = () => (install ??= claudeInstallChecks(paths, version));
  return {
    installed: () => installChecks().length > 0,
    checks: (anyClient) => [
      ...(installChecks().length > 0 ? installChecks() : [notInstalled(paths, anyClient)]),
      ...settingsChecks(paths),
      ...skillShellChecks(paths),
    ],
  };
}
