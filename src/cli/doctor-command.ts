// `dotagent doctor`'s work (the command's options and help are in commands/doctor.ts): what is
// wrong with this set-up, one line per check with the fix. Reads only: no lock, no writer. In the
// cold half: a person runs it now and then, and every other command loads less.
import { accessSync, constants, existsSync, lstatSync } from "node:fs";
import { checkLogin, checkNode, checkSdk, doctorExitCode, type Check, type LoginFacts } from "../core/doctor.js";
import { findAgentSdk, sdkInstallHint, sdkVersionFits, SDK_RANGE } from "./agent-sdk.js";
import { DEFAULT_STALE_AFTER_MS, formatProblem, validateState } from "../core/validate.js";
import { claudeStateFile } from "../claude/trust.js";
import { ADAPTERS, DEFAULT_CLIENT, adapterOf } from "../clients/index.js";
import { CLIENT_PARTS } from "../clients/cold-parts.js";
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
import { count } from "../core/words.js";
import { isWorkflowComplete } from "../core/transitions.js";
import { formatTime } from "./time.js";

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

/** `dotagent doctor`: the checks, printed; the exit code (SPEC §12). `cliUrl`: the bundled CLI's own URL (the cold half has none), where the Agent SDK is looked for beside it. */
export async function runDoctor(context: CommandContext, cliUrl: string): Promise<number> {
  assertProjectRoot(context.paths); // --dir not a folder: exit 3 like every command (§2), not a check line
  // --headless: `dotagent run` needs no Claude Code install, but it cannot run without the SDK and a login.
  const headless = context.options.headless === true;
  const required = (check: Check): Check =>
    headless && check.status === "warn" ? { ...check, status: "fail" } : check;
  // The clients to check: the one --client names, else each installed here (its install's
  // files); none installed: Claude Code's checks, whose install line says how to install any.
  const doctors = new Map(
    headless ? [] : ADAPTERS.map((a) => [a.id, CLIENT_PARTS[a.id].doctor(context.paths, VERSION)] as const),
  );
  const found = ADAPTERS.filter((a) => doctors.get(a.id)?.installed() === true).map((a) => a.id);
  const named = context.options.client === undefined ? undefined : clientOption(context);
  const clients: Client[] = headless
    ? []
    : named !== undefined
      ? [named]
      : found.length > 0
        ? found
        : [DEFAULT_CLIENT.id];
  const clientChecks = clients.flatMap((client) =>
    doctors
      .get(client)!
      .checks(named === undefined)
      .map((check) => ({ ...check, client })),
  );
  // `sdk` and `login` are about `dotagent run` (Claude's Agent SDK): with the checks of the client it drives only.
  const runChecks =
    headless || clients.some((client) => CLIENT_PARTS[client].runsHeadless)
      ? [required(sdkCheck(context.paths, cliUrl)), required(loginCheck())]
      : [];
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
            `${adapterOf(client).name}:`,
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
