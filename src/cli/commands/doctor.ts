// `dotagent doctor`: what is wrong with this set-up, one line per check with the fix. Reads only:
// no lock, no writer, no cold half (it runs as fast as `status` plus a few file reads).
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { checkNode, doctorExitCode, type Check } from "../../core/doctor.js";
import { DEFAULT_STALE_AFTER_MS, formatProblem, validateState } from "../../core/validate.js";
import { inspectInstall, inspectPlugins } from "../../claude/inspect-install.js";
import { installTarget } from "../../claude/settings.js";
import { DEFAULT_LEASE_MS, judgeLock, readLock } from "../../store/lock.js";
import { loadSnapshot } from "../../store/session.js";
import type { ProjectPaths } from "../../store/project.js";
import { join } from "node:path";
import { resumeOptions } from "../resume-options.js";
import { VERSION } from "../version.js";
import type { Command, CommandContext } from "../context.js";
import { count } from "../../core/words.js";
import { formatTime } from "../time.js";

function installChecks(paths: ProjectPaths): Check[] {
  const project = installTarget("project", paths.root);
  const user = installTarget("user", paths.root);
  const checks = [...inspectInstall("project", project, VERSION), ...(user === project ? [] : inspectInstall("user", user, VERSION)), ...inspectPlugins(user, VERSION)];
  if (checks.length > 0) return checks;
  return [
    {
      name: "install",
      status: "fail",
      message: `dotagent is not installed for Claude Code: no install in ${project} or ${user}, and no dotagent plugin`,
      fix: "run `dotagent install` in the project (or `dotagent install --scope user`, or install the plugin)",
    },
  ];
}

/** Every settings file Claude Code reads for this project must parse, or Claude Code reports it. */
function settingsChecks(paths: ProjectPaths): Check[] {
  const files = [join(paths.root, ".claude", "settings.json"), join(paths.root, ".claude", "settings.local.json"), join(installTarget("user", paths.root), "settings.json")].filter((f, i, all) => all.indexOf(f) === i && existsSync(f));
  const bad: Check[] = [];
  for (const file of files) {
    try {
      const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not a JSON object");
    } catch (error) {
      bad.push({ name: "settings", status: "fail", message: `${file} does not parse: ${(error as Error).message.split("\n")[0]}`, fix: `fix the JSON in ${file}, then run \`dotagent install\`` });
    }
  }
  if (bad.length > 0) return bad;
  return [{ name: "settings", status: "ok", message: files.length === 0 ? "no settings.json yet" : `${count(files.length, "settings file")} parse${files.length === 1 ? "s" : ""}`, fix: null }];
}

async function stateCheck(context: CommandContext): Promise<Check> {
  const { paths } = context;
  if (!existsSync(paths.stateDir)) return { name: "state", status: "ok", message: "no workflow here yet (memory/state does not exist)", fix: null };
  const snapshot = await loadSnapshot(paths);
  const report = validateState(snapshot, context.now(), { staleAfterMs: resumeOptions(context).staleAfterMs ?? DEFAULT_STALE_AFTER_MS });
  const first = report.errors[0];
  if (first !== undefined) {
    return { name: "state", status: "fail", message: `${count(report.errors.length, "error")} in memory/state: ${formatProblem(first)}`, fix: "`dotagent validate` lists them; `dotagent resume` offers to archive the state and start fresh" };
  }
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const what = phase ? `workflow ${phase.workflow_id} at ${phase.current_phase} (${phase.phase_status})` : "no workflow";
  const warning = report.warnings[0];
  if (warning !== undefined) {
    return { name: "state", status: "warn", message: `${what}: valid, ${count(report.warnings.length, "warning")}: ${formatProblem(warning)}`, fix: warning.code === "stale" ? "`dotagent resume` asks whether to continue or archive it" : "`dotagent resume` repairs what it can; `dotagent validate` lists every warning" };
  }
  return { name: "state", status: "ok", message: `${what}: valid`, fix: null };
}

function lockCheck(context: CommandContext): Check {
  const lock = readLock(context.paths.stateDir);
  if (lock === null) return { name: "lock", status: "ok", message: "memory/state/.lock: free", fix: null };
  const verdict = judgeLock(lock, context.now(), DEFAULT_LEASE_MS);
  if (verdict.stale) return { name: "lock", status: "warn", message: `memory/state/.lock is stale (${verdict.why}): the next command takes it over`, fix: "nothing to do; `dotagent resume` takes it over with a warning" };
  if (lock === "unreadable") return { name: "lock", status: "warn", message: "memory/state/.lock is unreadable", fix: "the next command takes it over" };
  return { name: "lock", status: "ok", message: `memory/state/.lock: held by pid ${lock.pid} on ${lock.hostname} (${lock.command || "unknown command"}) since ${formatTime(lock.acquired_at)}`, fix: null };
}

function writableCheck(paths: ProjectPaths): Check {
  const folder = [paths.stateDir, join(paths.root, "memory"), paths.root].find((f) => existsSync(f));
  if (folder === undefined) return { name: "writable", status: "fail", message: `${paths.root} does not exist`, fix: "run from the project folder, or pass --dir" };
  try {
    accessSync(folder, constants.W_OK);
    return { name: "writable", status: "ok", message: `${folder} is writable`, fix: null };
  } catch (error) {
    return { name: "writable", status: "fail", message: `${folder} is not writable (${(error as NodeJS.ErrnoException).code ?? "error"})`, fix: `make it writable (\`chmod u+w ${folder}\`) or work in a folder you own` };
  }
}

export const command: Command = {
  summary: "check the set-up: Node.js, the install, settings.json, the state, the lock; each with its fix",
  usage: "dotagent doctor [--stale-after 7d|never] [--json]",
  options: { "stale-after": { type: "string" } },
  examples: ["dotagent doctor", "dotagent doctor --json          {ok, version, checks:[{name, status: ok|warn|fail, message, fix}]}"],
  async run(context) {
    const checks: Check[] = [checkNode(process.version), ...installChecks(context.paths), ...settingsChecks(context.paths), await stateCheck(context), lockCheck(context), writableCheck(context.paths)];
    const code = doctorExitCode(checks);
    context.out.result({ ok: code === 0, version: VERSION, checks }, () => {
      const c = context.out.color;
      const mark = { ok: c.green("✓"), warn: c.yellow("!"), fail: c.red("✗") };
      return [
        `dotagent ${VERSION} doctor in ${context.paths.root}`,
        ...checks.map((check) => `${mark[check.status]} ${check.name.padEnd(8)} ${check.message}${check.fix ? ` — fix: ${check.fix}` : ""}`),
        code === 0 ? "All good." : `${count(checks.filter((x) => x.status === "fail").length, "problem")} to fix.`,
      ];
    });
    return code;
  },
};
