// What `doctor` finds of dotagent's Claude Code integration: installs by `dotagent install`
// (a .claude folder with the install manifest) and plugin installs (Claude Code's
// plugins/installed_plugins.json). Reads only; never loads globby or the cold half.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { checkHelperDamage, checkHelperVersion, type Check } from "../core/doctor.js";
import { readProjectHead, readProjectText } from "../store/read-file.js";
import { helperVersion, readInstallManifest } from "./install-manifest.js";
import { lookAt, readInstalledFile, type Found } from "./install-paths.js";
import { helperDamage } from "../install/helper-damage.js";
import {
  hookEntries,
  olderHooks,
  missingHooks,
  readSettings,
  REPORTS_BASH_RULE,
  STATE_BASH_RULE,
  WRITE_MATCHER,
  type HookEntry,
  type Scope,
  type Settings,
} from "./settings.js";
import { count } from "../core/words.js";
import { BUILTIN_AGENTS } from "../core/workflow-defs.js";

export const HELPER = "skills/checkpoint/scripts/dotagent.mjs";
/** What every install must hold for /develop, the checkpoint protocol and the agents to work. */
export const REQUIRED_FILES = [
  "skills/checkpoint/SKILL.md",
  HELPER,
  "skills/develop/SKILL.md",
  ...BUILTIN_AGENTS.map((a) => `agents/${a}.md`),
];

/**
 * The helper's version marker, or why it cannot be read: never blocks (a FIFO at its place is
 * refused without a byte read), and a folder or an unreadable file is a reason, not a crash.
 */
function readHelperHead(file: string): { head: string } | { problem: string } {
  const read = readProjectHead(file, 512, { links: "follow" });
  if (read.kind === "ok") return { head: read.bytes.toString("utf8") };
  return { problem: read.kind === "missing" ? "is missing" : read.reason };
}

const list = (items: readonly string[]) => `${items.slice(0, 3).join(", ")}${items.length > 3 ? ", …" : ""}`;

/** Checks of one `dotagent install` target, or [] when dotagent is not installed there. */
export function inspectInstall(scope: Scope, target: string, cliVersion: string): Check[] {
  const read = readInstallManifest(target);
  if (read === null) return [];
  const { manifest, ignored } = read;
  const where = `${scope} (${target})`;
  const install = `run \`dotagent install${scope === "user" ? " --scope user" : ""}\``;
  const checks: Check[] = [];
  // Every path is placed inside the target and read bounded: a manifest entry never sends
  // doctor out of the folder, into a FIFO, or through a link.
  const found = new Map<string, Found>();
  const at = (rel: string) => {
    let f = found.get(rel);
    if (f === undefined) found.set(rel, (f = lookAt(target, rel)));
    return f;
  };
  const paths = [...REQUIRED_FILES, ...manifest.files.map((f) => f.path).filter((f) => !REQUIRED_FILES.includes(f))];
  const missing = paths.filter((p) => at(p).kind === "missing");
  const unusable = paths.flatMap((p) => {
    const f = at(p);
    return f.kind === "refused" ? [`${p} (${f.reason})`] : [];
  });
  const changed = manifest.files.filter((f) => {
    const here = at(f.path);
    return here.kind === "file" && here.hash !== f.sha256;
  });
  // A helper that cannot run is named as such, not as the person's edit (src/install/helper-damage.ts).
  const helper = at(HELPER);
  const damage = helper.kind === "file" && changed.some((f) => f.path === HELPER) ? helperDamage(helper.bytes) : null;
  const edited = changed.map((f) => f.path).filter((path) => !(path === HELPER && damage !== null));
  const by = manifest.dotagent_version ? ` by dotagent ${manifest.dotagent_version}` : "";
  if (missing.length > 0) {
    checks.push({
      name: "install",
      status: "fail",
      message: `${where}: ${count(missing.length, "file")} missing: ${list(missing)}`,
      fix: install,
    });
  } else if (unusable.length > 0) {
    checks.push({
      name: "install",
      status: "fail",
      message: `${where}: ${count(unusable.length, "file")} not usable: ${list(unusable)}`,
      fix: `move them out of the way, then ${install}`,
    });
  } else {
    const note = edited.length > 0 ? `; ${edited.length} edited by you (kept on upgrade): ${list(edited)}` : "";
    checks.push({
      name: "install",
      status: "ok",
      message: `${where}: skills and agents installed${by}${note}`,
      fix: null,
    });
  }
  if (ignored.length > 0) {
    const first = ignored[0]!;
    checks.push({
      name: "install",
      status: "warn",
      message: `${where}: ${ignored.length} entr${ignored.length === 1 ? "y" : "ies"} of .dotagent-install.json ignored (install and --uninstall leave what they name alone): ${first.path}: ${first.reason}`,
      fix: "remove those entries from .dotagent-install.json; dotagent never writes them",
    });
  }
  if (damage !== null) checks.push(helperDamaged(where, damage, `${install} (it replaces a helper that cannot run)`));
  else if (helper.kind === "file") {
    const head = readHelperHead(helper.path);
    checks.push(
      "head" in head
        ? checkHelperVersion(
            where,
            helperVersion(head.head),
            cliVersion,
            `${install} (it updates the files you did not change)`,
          )
        : helperUnreadable(where, head.problem, install),
    );
  } else if (helper.kind === "refused") {
    checks.push(helperUnreadable(where, helper.reason, install));
  }
  const settingsFile = join(target, "settings.json");
  let settings;
  try {
    settings = readSettings(settingsFile);
  } catch {
    return checks; // the settings check names it
  }
  const absent = missingHooks(settings.value, hookEntries(scope, target));
  const events = [...new Set(absent.map((e) => e.event))];
  const named = [...new Set(absent.map((e) => consequenceOf(e, settings.value)))];
  // A run not recorded at all has no journal to copy: the SubagentStart entry's consequence goes in it.
  const consequences = named.some((c) => c.includes("Workflow runs are not recorded"))
    ? named.filter((c) => !c.includes("journals are not copied"))
    : named;
  checks.push(
    absent.length === 0
      ? olderHookCheck(where, olderHooks(settings.value, hookEntries(scope, target)), install)
      : {
          name: "hook",
          status: "fail",
          message: `${where}: settings.json lacks dotagent's ${events.join(", ")} hook${absent.length === 1 ? "" : "s"}, so ${consequences.join(" and ")}`,
          fix: install,
        },
  );
  return checks;
}

/** The hook check when every entry is there: ok, with the update when an earlier install's lines run some. */
function olderHookCheck(where: string, older: "mjs" | "unguarded" | null, install: string): Check {
  if (older === null)
    return { name: "hook", status: "ok", message: `${where}: dotagent's hooks in settings.json`, fix: null };
  const why =
    older === "mjs"
      ? "as an earlier install wrote them, for lines running dotagent.mjs (dotagent.cjs beside it starts faster)"
      : "as an earlier install wrote them (under Copilot CLI, which runs them too, each starts Node for nothing; this version's lines skip it)";
  return { name: "hook", status: "ok", message: `${where}: dotagent's hooks in settings.json, ${why}`, fix: install };
}

/**
 * What a missing hook entry leaves undone, named per entry (SPEC §12 `hook`). An install from
 * before issue 43 has PostToolUse on `Agent|Task` and no SubagentStart entry: its agents are still
 * recorded, only Claude Code's Workflow runs are not.
 */
export function consequenceOf(entry: HookEntry, settings: Settings): string {
  if (entry.event === "SessionStart") return "resumed sessions are not briefed";
  if (entry.matcher === WRITE_MATCHER || entry.if === STATE_BASH_RULE || entry.if === REPORTS_BASH_RULE)
    return "the model's writes into memory/state/ and agents' reports are not stopped";
  if (entry.event === "PreToolUse" && entry.matcher === "Bash")
    return "the skills' helper lines are not let through (Claude Code asks about each)";
  if (entry.event === "PreToolUse") return "agents' starts are not recorded";
  if (entry.event === "PostToolUse") {
    const agentsStill = groupsWith(settings, "PostToolUse", entry.command).some((m) => m.split("|").includes("Agent"));
    return agentsStill
      ? "Claude Code's Workflow runs are not recorded"
      : "agents' results and Claude Code's Workflow runs are not recorded";
  }
  if (entry.event === "PostToolUseFailure") return "agents' failed calls are not recorded";
  if (entry.event === "SubagentStart")
    return "Claude Code's Workflow runs' journals are not copied as each workflow agent starts";
  if (entry.event === "SubagentStop") return "agents' results and Workflow runs' journals are not recorded";
  if (entry.event === "UserPromptSubmit") return "background agents' results and the person's replies are not recorded";
  return `dotagent's ${entry.event} hook does not run`;
}

/** The matchers of the event's groups that run this command. */
function groupsWith(settings: Settings, event: string, command: string): string[] {
  const hooks = settings.hooks;
  const list = hooks !== null && typeof hooks === "object" ? (hooks as Record<string, unknown>)[event] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((g: unknown) => {
    const group = g as { matcher?: unknown; hooks?: unknown };
    const runs =
      Array.isArray(group.hooks) && group.hooks.some((h) => (h as { command?: unknown }).command === command);
    return runs && typeof group.matcher === "string" ? [group.matcher] : [];
  });
}

function helperDamaged(where: string, damage: string, fix: string): Check {
  return checkHelperDamage(where, HELPER, damage, fix);
}

function helperUnreadable(where: string, problem: string, fix: string): Check {
  const remedy = problem.startsWith("cannot be read")
    ? "make it readable (`chmod a+r` it)"
    : `move it out of the way, then ${fix}`;
  return {
    name: "helper",
    status: "fail",
    message: `${where}: the helper ${HELPER} ${problem}, so the skills cannot run it`,
    fix: remedy,
  };
}

interface PluginEntry {
  installPath?: unknown;
  version?: unknown;
}

/** Checks of each dotagent plugin Claude Code has installed under this config folder. */
export function inspectPlugins(claudeDir: string, cliVersion: string): Check[] {
  const file = join(claudeDir, "plugins", "installed_plugins.json");
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind === "missing") return [];
  if (read.kind === "refused")
    return [
      {
        name: "install",
        status: "fail",
        message: `${file} ${read.reason}, so Claude Code's plugins cannot be listed`,
        fix: `move it out of the way; Claude Code writes it again when a plugin is installed`,
      },
    ];
  let registry: { plugins?: Record<string, unknown> };
  try {
    registry = JSON.parse(read.text) as typeof registry;
  } catch {
    return [];
  }
  if (registry === null || typeof registry !== "object") return [];
  const checks: Check[] = [];
  for (const [id, value] of Object.entries(registry.plugins ?? {})) {
    if (!id.startsWith("dotagent@")) continue;
    for (const entry of (Array.isArray(value) ? value : [value]) as PluginEntry[]) {
      if (typeof entry?.installPath !== "string") continue;
      const where = `plugin ${id} (${entry.installPath})`;
      const missing = [...REQUIRED_FILES, "hooks/hooks.json"].filter(
        (f) => !existsSync(join(entry.installPath as string, f)),
      );
      checks.push(
        missing.length === 0
          ? { name: "install", status: "ok", message: `${where}: skills, agents and hook installed`, fix: null }
          : {
              name: "install",
              status: "fail",
              message: `${where}: ${count(missing.length, "file")} missing: ${missing.slice(0, 3).join(", ")}`,
              fix: `run \`claude plugin update ${id}\`, or uninstall and install it again`,
            },
      );
      const head = readHelperHead(join(entry.installPath, HELPER));
      const damage = "head" in head ? pluginHelperDamage(join(entry.installPath, HELPER)) : null;
      if (damage !== null)
        checks.push(
          helperDamaged(where, damage, `run \`claude plugin update ${id}\`, or uninstall and install it again`),
        );
      else if ("head" in head)
        checks.push(
          checkHelperVersion(where, helperVersion(head.head), cliVersion, `run \`claude plugin update ${id}\``),
        );
      else if (!missing.includes(HELPER))
        checks.push(helperUnreadable(where, head.problem, `run \`claude plugin update ${id}\``));
    }
  }
  return checks;
}

/** Why a plugin's helper cannot run, or null (read bounded, as the version marker is). */
function pluginHelperDamage(file: string): string | null {
  const read = readInstalledFile(file);
  return read.kind === "ok" ? helperDamage(read.bytes) : null;
}
