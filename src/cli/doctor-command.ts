// `dotagent doctor`'s work (the command's options and help are in commands/doctor.ts): what is
// wrong with this set-up, one line per check with the fix. Reads only: no lock, no writer. In the
// cold half: a person runs it now and then, and every other command loads less.
import { accessSync, constants, existsSync, lstatSync } from "node:fs";
import {
  checkClaudeMode,
  checkLogin,
  checkNode,
  checkSdk,
  doctorExitCode,
  type Check,
  type LoginFacts,
} from "../core/doctor.js";
import { findAgentSdk, sdkInstallHint, sdkVersionFits, SDK_RANGE } from "./agent-sdk.js";
import { DEFAULT_STALE_AFTER_MS, formatProblem, validateState } from "../core/validate.js";
import { inspectInstall, inspectPlugins } from "../claude/inspect-install.js";
import { installTarget } from "../claude/settings.js";
import { claudeStateFile, claudeTrustCheck } from "../claude/trust.js";
import { otherClientsInstalled } from "../clients/detect.js";
import { DEFAULT_LEASE_MS, judgeLock, readLock } from "../store/lock.js";
import { loadSnapshot } from "../store/session.js";
import { readProjectText } from "../store/read-file.js";
import { assertProjectRoot, findStatePathProblem } from "../store/state-paths.js";
import type { ProjectPaths } from "../store/project.js";
import { join } from "node:path";
import { homedir } from "node:os";
import { resumeOptions } from "./resume-options.js";
import { VERSION } from "./version.js";
import type { CommandContext } from "./context.js";
import { clientOption, type Client } from "./client-option.js";
import { copilotChecks, gatherCopilotFacts } from "../clients/copilot/doctor.js";
import { codexChecks } from "../clients/codex/index.js";
import { count } from "../core/words.js";
import { isWorkflowComplete } from "../core/transitions.js";
import { dotagentSkillLines, skillShellHooks } from "../claude/skill-shell-hooks.js";
import { formatTime } from "./time.js";

/**
 * Claude Code's install checks (project, user, plugin) and, for a project install, whether Claude
 * Code trusts the folder (it runs no project hook until then); [] when there is no install.
 */
function claudeInstallChecks(paths: ProjectPaths): Check[] {
  const project = installTarget("project", paths.root);
  const user = installTarget("user", paths.root);
  const here = inspectInstall("project", project, VERSION);
  return [
    ...here,
    ...(here.length > 0 ? [claudeTrustCheck(paths.root)] : []),
    ...(user === project ? [] : inspectInstall("user", user, VERSION)),
    ...inspectPlugins(user, VERSION),
  ];
}

/** No install found: for Claude Code (`--client claude`), or for any client. */
function notInstalled(paths: ProjectPaths, anyClient: boolean): Check {
  const where = `no install in ${installTarget("project", paths.root)} or ${installTarget("user", paths.root)}, and no dotagent plugin`;
  return anyClient
    ? {
        name: "install",
        status: "fail",
        message: `dotagent is not installed here for any client: for Claude Code ${where}; no .github/.dotagent-copilot-install.json (Copilot CLI), no .codex/.dotagent-install.json (Codex CLI)`,
        fix: "run `dotagent install` in the project for Claude Code (`dotagent install --client copilot` for Copilot CLI, `--client codex` for Codex CLI)",
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
    join(installTarget("project", paths.root), "skills", "checkpoint", "scripts", "dotagent.mjs"),
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
        fix: "nothing needed: /develop then has the model run `dotagent resume --start` (one more step); to keep the plan in the skill, exclude lines running dotagent.mjs from that hook",
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

async function stateCheck(context: CommandContext): Promise<Check> {
  const { paths } = context;
  // memory/ a file (or a link, or unreadable) is not "no workflow here yet": with memory/state
  // there it stops doctor (exit 3, as every command); without, it is this check's failure.
  const problem = findStatePathProblem(paths);
  if (problem !== null) {
    if (problem.code === "state_unreadable" || existsSync(paths.stateDir)) throw problem;
    return {
      name: "state",
      status: "fail",
      message: problem.message,
      fix: "replace it with a real folder (dotagent keeps the workflow in memory/state/), then run `dotagent doctor` again",
    };
  }
  if (!existsSync(paths.stateDir))
    return { name: "state", status: "ok", message: "no workflow here yet (memory/state does not exist)", fix: null };
  const snapshot = await loadSnapshot(paths);
  const report = validateState(snapshot, context.now(), {
    staleAfterMs: resumeOptions(context).staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
  });
  const first = report.errors[0];
  if (first !== undefined) {
    return {
      name: "state",
      status: "fail",
      message: `${count(report.errors.length, "error")} in memory/state: ${formatProblem(first)}`,
      fix: "`dotagent validate` lists them; `dotagent resume` offers to go back to the newest checkpoint (`dotagent history`), or to archive the state and start fresh",
    };
  }
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const what = phase
    ? isWorkflowComplete(phase)
      ? `workflow ${phase.workflow_id} is complete`
      : `workflow ${phase.workflow_id} at ${phase.current_phase} (${phase.phase_status})`
    : "no workflow";
  const warning = report.warnings[0];
  if (warning !== undefined) {
    const fix =
      warning.code === "stale"
        ? "`dotagent resume` asks whether to continue or archive it"
        : warning.code === "rollback_interrupted"
          ? "`dotagent resume` finishes the rollback (nothing to archive or start afresh)"
          : warning.code === "hand_edit"
            ? "`dotagent resume` asks whether to keep the edit or go back to the newest checkpoint (`dotagent history`)"
            : "`dotagent resume` repairs what it can; `dotagent validate` lists every warning";
    return {
      name: "state",
      status: "warn",
      message: `${what}: valid, ${count(report.warnings.length, "warning")}: ${formatProblem(warning)}`,
      fix,
    };
  }
  return { name: "state", status: "ok", message: `${what}: valid`, fix: null };
}

function lockCheck(context: CommandContext): Check {
  const file = join(context.paths.stateDir, ".lock");
  // A folder at .lock cannot be replaced by the stale-lock takeover (rename over a folder fails):
  // every command that locks fails on it (EISDIR), so it is a failure to fix, not a stale lock.
  if (isFolder(file))
    return {
      name: "lock",
      status: "fail",
      message:
        "memory/state/.lock is a folder, where dotagent keeps its lock file: no command can take the lock (EISDIR)",
      fix: "move it out of the way (`rmdir memory/state/.lock` if it is empty); no command can run until then",
    };
  const lock = readLock(context.paths.stateDir);
  if (lock === null) return { name: "lock", status: "ok", message: "memory/state/.lock: free", fix: null };
  const verdict = judgeLock(lock, context.now(), DEFAULT_LEASE_MS);
  if (verdict.stale)
    return {
      name: "lock",
      status: "warn",
      message: `memory/state/.lock is stale (${verdict.why}): the next command takes it over`,
      fix: "nothing to do; `dotagent resume` takes it over with a warning",
    };
  if (lock === "unreadable")
    return {
      name: "lock",
      status: "warn",
      message: "memory/state/.lock is unreadable",
      fix: "the next command takes it over",
    };
  return {
    name: "lock",
    status: "ok",
    message: `memory/state/.lock: held by pid ${lock.pid} on ${lock.hostname} (${lock.command || "unknown command"}) since ${formatTime(lock.acquired_at)}`,
    fix: null,
  };
}

/** The Agent SDK `dotagent run` would load (found, not imported). */
function sdkCheck(paths: ProjectPaths, cliUrl: string): Check {
  const found = findAgentSdk(paths.root, cliUrl);
  return checkSdk(
    found && {
      version: found.version,
      where: found.where,
      fits: found.version !== null && sdkVersionFits(found.version),
    },
    SDK_RANGE,
    sdkInstallHint(),
  );
}

/**
 * Claude Code's credentials as far as they can be seen without a network call: the variables it
 * reads, its login file and its /login key (as test/claude/NOTES.md found them). Whether the key
 * works, and whether the API answers, only a call can tell: `dotagent run` asks before it starts.
 */
function loginCheck(): Check {
  const env = process.env;
  const set = (name: string) => (env[name] ?? "") !== "";
  const on = (name: string) => set(name) && env[name] !== "0" && env[name] !== "false";
  const provider = on("CLAUDE_CODE_USE_BEDROCK")
    ? "Bedrock"
    : on("CLAUDE_CODE_USE_VERTEX")
      ? "Vertex AI"
      : on("CLAUDE_CODE_USE_FOUNDRY")
        ? "Microsoft Foundry"
        : null;
  const home = env.HOME || homedir();
  const configDir = env.CLAUDE_CONFIG_DIR || join(home, ".claude");
  const credentials = join(configDir, ".credentials.json");
  const state = claudeStateFile(env);
  const facts: LoginFacts = {
    envKeys: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"].filter(set),
    provider,
    credentialsFile:
      typeof (jsonObject(credentials)?.claudeAiOauth as { accessToken?: unknown } | undefined)?.accessToken === "string"
        ? credentials
        : null,
    loginKeyFile: typeof jsonObject(state)?.primaryApiKey === "string" ? state : null,
    looked: [credentials, state],
    platform: process.platform,
  };
  return checkLogin(facts);
}

/** A small JSON file as an object, or undefined (missing, not JSON, not a regular file: read the §2 way). */
function jsonObject(file: string): Record<string, unknown> | undefined {
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind !== "ok") return undefined;
  try {
    const value = JSON.parse(read.text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The folder dotagent writes into: memory/state, else memory/, else the root; each must be a real folder. */
function writableCheck(paths: ProjectPaths): Check {
  for (const folder of [paths.stateDir, join(paths.root, "memory"), paths.root]) {
    let stat;
    try {
      stat = lstatSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
        continue;
      return {
        name: "writable",
        status: "fail",
        message: `${folder} cannot be looked at (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        fix: `check the permissions of ${folder}`,
      };
    }
    if (!stat.isDirectory()) {
      const what = stat.isSymbolicLink() ? "a symbolic link" : "a file";
      return {
        name: "writable",
        status: "fail",
        message: `${folder} is ${what}, where dotagent needs a folder: nothing can be written there`,
        fix: `move it out of the way, then run \`dotagent init\``,
      };
    }
    try {
      accessSync(folder, constants.W_OK);
      return { name: "writable", status: "ok", message: `${folder} is writable`, fix: null };
    } catch (error) {
      return {
        name: "writable",
        status: "fail",
        message: `${folder} is not writable (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        fix: `make it writable (\`chmod u+w ${folder}\`) or work in a folder you own`,
      };
    }
  }
  return {
    name: "writable",
    status: "fail",
    message: `${paths.root} does not exist`,
    fix: "run from the project folder, or pass --dir",
  };
}

/** "All good.", "All good (2 warnings).", "1 problem to fix (1 warning).": the warnings counted, never hidden by the verdict. */
function summaryLine(checks: readonly Check[], code: number, headless: boolean): string {
  const warnings = checks.filter((x) => x.status === "warn").length;
  const also = warnings > 0 ? ` (${count(warnings, "warning")})` : "";
  const scope = headless ? " for `dotagent run`" : "";
  return code === 0
    ? `All good${scope}${also}.`
    : `${count(checks.filter((x) => x.status === "fail").length, "problem")} to fix${scope}${also}.`;
}

const CLIENT_NAMES: Record<Client, string> = { claude: "Claude Code", copilot: "Copilot CLI", codex: "Codex CLI" };

/** `dotagent doctor`: the checks, printed; the exit code (SPEC §12). `cliUrl`: the bundled CLI's own URL (the cold half has none), where the Agent SDK is looked for beside it. */
export async function runDoctor(context: CommandContext, cliUrl: string): Promise<number> {
  assertProjectRoot(context.paths); // --dir not a folder: exit 3 like every command (§2), not a check line
  // --headless: `dotagent run` needs no Claude Code install, but it cannot run without the SDK and a login.
  const headless = context.options.headless === true;
  const required = (check: Check): Check =>
    headless && check.status === "warn" ? { ...check, status: "fail" } : check;
  // The clients to check: the one --client names, else each installed here (its install's
  // files); none installed: Claude Code's checks, whose install line says how to install any.
  const claudeInstall = headless ? [] : claudeInstallChecks(context.paths);
  const found: Client[] = [
    ...(claudeInstall.length > 0 ? ["claude" as const] : []),
    ...otherClientsInstalled(context.paths.root),
  ];
  const named = context.options.client === undefined ? undefined : clientOption(context);
  const clients: Client[] = headless ? [] : named !== undefined ? [named] : found.length > 0 ? found : ["claude"];
  const checksOf = (client: Client): Check[] =>
    client === "copilot"
      ? copilotChecks(gatherCopilotFacts(context.paths.root), VERSION)
      : client === "codex"
        ? codexChecks(context.paths.root)
        : [
            ...(claudeInstall.length > 0 ? claudeInstall : [notInstalled(context.paths, named === undefined)]),
            ...settingsChecks(context.paths),
            ...skillShellChecks(context.paths),
          ];
  const clientChecks = clients.flatMap((client) => checksOf(client).map((check) => ({ ...check, client })));
  // `sdk` and `login` are about `dotagent run` (Claude's Agent SDK): with Claude Code's checks only.
  const runChecks =
    headless || clients.includes("claude") ? [required(sdkCheck(context.paths, cliUrl)), required(loginCheck())] : [];
  const checks: Check[] = [
    checkNode(process.version),
    ...clientChecks,
    await stateCheck(context),
    lockCheck(context),
    writableCheck(context.paths),
    ...runChecks,
  ];
  const code = doctorExitCode(checks);
  context.out.result({ ok: code === 0, version: VERSION, clients, checks }, () => {
    const c = context.out.color;
    const mark = { ok: c.green("✓"), warn: c.yellow("!"), fail: c.red("✗") };
    // One column for the messages, however long a check's name (Codex's `hook-node`).
    const width = Math.max(8, ...checks.map((x) => x.name.length));
    const line = (check: Check) =>
      `${mark[check.status]} ${check.name.padEnd(width)} ${check.message}${check.fix ? ` — fix: ${check.fix}` : ""}`;
    // Several clients: each client's checks under its name.
    const grouped =
      clients.length < 2
        ? clientChecks.map(line)
        : clients.flatMap((client) => [
            `${CLIENT_NAMES[client]}:`,
            ...clientChecks.filter((x) => x.client === client).map((x) => `  ${line(x)}`),
          ]);
    const shared = checks.filter((x) => !clientChecks.includes(x as (typeof clientChecks)[number]));
    return [
      `dotagent ${VERSION} doctor in ${context.paths.root}`,
      line(shared[0]!),
      ...grouped,
      ...shared.slice(1).map(line),
      summaryLine(checks, code, headless),
    ];
  });
  return code;
}
