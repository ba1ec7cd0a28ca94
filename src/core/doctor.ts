// `dotagent doctor` as data: each check is a value with a status, one line of what was found and
// the fix. The command gathers the facts (disk, process); the judgement that needs no disk lives
// here so it is tested with tables.

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  /** Short, stable name: node, install, helper, hook, trust, settings, state, lock, writable, sdk, login (and each client's own). */
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do; null when nothing needs doing. */
  readonly fix: string | null;
  /** The client a check is about (claude, copilot, codex); absent for the checks every client shares. */
  readonly client?: string;
}

/** The engines range of package.json (`>=20.19`), as the oldest Node.js dotagent runs on. */
export const MIN_NODE = "20.19.0";

export function parseVersion(text: string): [number, number, number] | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/** -1, 0 or 1; a version that does not parse sorts before every other. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

export function checkNode(running: string, minimum: string = MIN_NODE): Check {
  const ok = compareVersions(running, minimum) >= 0;
  const shown = minimum.replace(/\.0$/, "");
  return ok
    ? {
        name: "node",
        status: "ok",
        message: `Node.js ${running.replace(/^v/, "")} (dotagent needs ${shown} or later)`,
        fix: null,
      }
    : {
        name: "node",
        status: "fail",
        message: `Node.js ${running.replace(/^v/, "")} is older than ${shown}, which dotagent needs`,
        fix: `install Node.js ${shown} or later (22 or 24 LTS)`,
      };
}

/**
 * An installed helper that cannot run (src/install/helper-damage.ts says why: a half missing, its
 * cold half not unpacking, its hot half not parsing): every skill line fails until install
 * replaces it, which it does for such a copy though it keeps the person's edits.
 */
export function checkHelperDamage(where: string, helper: string, damage: string, fix: string): Check {
  return {
    name: "helper",
    status: "fail",
    message: `${where}: the helper ${helper} is cut short or edited (${damage}), so the skills cannot run it`,
    fix,
  };
}

/** The installed helper against the running CLI: equal is fine, anything else means run install. */
export function checkHelperVersion(
  where: string,
  installed: string | null,
  cli: string,
  upgradeFix = "run `dotagent install` (it updates the files you did not change)",
): Check {
  if (installed === cli)
    return { name: "helper", status: "ok", message: `${where}: helper ${installed}, the same as this CLI`, fix: null };
  const what = installed === null ? "built before 0.1.0" : installed;
  const direction = installed !== null && compareVersions(installed, cli) > 0 ? "newer than" : "older than";
  return {
    name: "helper",
    status: "fail",
    message: `${where}: helper ${what} is ${direction} this CLI (${cli}): an upgrade is due`,
    fix:
      direction === "older than"
        ? upgradeFix
        : "upgrade the dotagent CLI (`npm install -g dotagent-workflow`), or run `dotagent install` with the CLI you mean to use",
  };
}

/** The Agent SDK as found beside dotagent, in the project or the current folder (cli/agent-sdk.ts). */
export interface SdkFacts {
  readonly version: string | null;
  readonly where: string;
  /** Whether the version is one this dotagent was built for. */
  readonly fits: boolean;
}

/** Only `dotagent run` needs the SDK: missing or another version is a warning, never a failure. */
export function checkSdk(found: SdkFacts | undefined, range: string, install: string): Check {
  if (found === undefined)
    return {
      name: "sdk",
      status: "warn",
      message:
        "the Claude Agent SDK is not installed beside dotagent or in the project: `dotagent run` needs it (the skills in Claude Code do not)",
      fix: install,
    };
  const version = found.version ?? "of unknown version";
  if (!found.fits)
    return {
      name: "sdk",
      status: "warn",
      message: `the Claude Agent SDK ${version} ${found.where} is not one this dotagent was built for (${range}); \`dotagent run\` may fail`,
      fix: `${install.replace(/claude-agent-sdk/g, "claude-agent-sdk@0.3")}`,
    };
  return {
    name: "sdk",
    status: "ok",
    message: `the Claude Agent SDK ${version} ${found.where} (for \`dotagent run\`)`,
    fix: null,
  };
}

/** What doctor can see of Claude Code's credentials without a network call or the macOS Keychain. */
export interface LoginFacts {
  /** The set variables among ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN. */
  readonly envKeys: readonly string[];
  /** The provider Claude Code is told to use instead of Anthropic's API (CLAUDE_CODE_USE_BEDROCK=1 → "Bedrock"), if any. */
  readonly provider: string | null;
  /** Claude Code's login file holding an OAuth token (`<config dir>/.credentials.json`), if any. */
  readonly credentialsFile: string | null;
  /** Claude Code's state file holding a key from /login (`primaryApiKey` in `.claude.json`), if any. */
  readonly loginKeyFile: string | null;
  /** The files looked at, for the message when there is nothing. */
  readonly looked: readonly string[];
  readonly platform: string;
}

const NOT_TRIED = "not tried: doctor calls no API; `dotagent run` asks Claude Code before it starts";

/** A key or a login Claude Code will use; none is a warning (Claude Code asks for a login itself). */
export function checkLogin(facts: LoginFacts): Check {
  const found =
    facts.provider !== null
      ? `Claude Code uses ${facts.provider} (its own credentials)`
      : facts.envKeys.length > 0
        ? `${facts.envKeys.join(", ")} ${facts.envKeys.length === 1 ? "is" : "are"} set`
        : facts.credentialsFile !== null
          ? `Claude Code is logged in (${facts.credentialsFile})`
          : facts.loginKeyFile !== null
            ? `Claude Code has a key from /login (${facts.loginKeyFile})`
            : null;
  if (found !== null) return { name: "login", status: "ok", message: `${found}; ${NOT_TRIED}`, fix: null };
  const keychain =
    facts.platform === "darwin"
      ? "; on macOS a login is kept in the Keychain, which doctor does not read (`dotagent run` checks it)"
      : "";
  return {
    name: "login",
    status: "warn",
    message: `no ANTHROPIC_API_KEY and no Claude Code login (looked in ${facts.looked.join(", ")})${keychain}`,
    fix: "log in (`claude`, then /login) or set ANTHROPIC_API_KEY: Claude Code and `dotagent run` need one",
  };
}

/** 0 when nothing failed (warnings are facts, not failures), else 1. */
export function doctorExitCode(checks: readonly Check[]): 0 | 1 {
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}

/**
 * When the client's settings let the model run any command without the person (SPEC §11 "Who
 * decides", what cannot be promised): Claude Code's `permissions.defaultMode` `bypassPermissions`
 * (or `auto`: its own check, not the person, decides each command), or an allow rule for every
 * Bash command. Pure: the settings as parsed, and the file they came from.
 */
export function checkClaudeMode(settings: unknown, file: string): Check[] {
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) return [];
  const permissions = (settings as { permissions?: unknown }).permissions;
  if (permissions === null || typeof permissions !== "object" || Array.isArray(permissions)) return [];
  const { defaultMode, allow } = permissions as { defaultMode?: unknown; allow?: unknown };
  const broad = Array.isArray(allow)
    ? allow.filter((r): r is string => typeof r === "string" && /^Bash(\((\*|\*\*|:\*|\s*)\))?$/.test(r.trim()))
    : [];
  const checks: Check[] = [];
  const fix =
    "keep the modes that ask before a command (default, acceptEdits, plan), and allow only the commands you mean; dotagent's own helper lines need no rule";
  if (defaultMode === "bypassPermissions")
    checks.push({
      name: "mode",
      status: "warn",
      message: `${file} sets permissions.defaultMode "bypassPermissions": the model runs any command without the person, so it can do what you can, answering for you included (SPEC §11)`,
      fix,
    });
  else if (defaultMode === "auto")
    checks.push({
      name: "mode",
      status: "warn",
      message: `${file} sets permissions.defaultMode "auto": Claude Code's own check, not the person, lets the model's commands run; one that forges the person's answer may get through (SPEC §11)`,
      fix,
    });
  if (broad.length > 0)
    checks.push({
      name: "mode",
      status: "warn",
      message: `${file} allows every Bash command (${broad.map((r) => JSON.stringify(r)).join(", ")}): the model runs any command without the person, answering for you included (SPEC §11)`,
      fix,
    });
  return checks;
}

/** Codex's config letting the model run anything, anywhere, without asking: approvals off and no sandbox. */
export function checkCodexMode(configText: string | null, file: string): Check[] {
  if (configText === null) return [];
  const value = (key: string) =>
    new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(configText.split(/\n\s*\[/)[0] ?? "")?.[1];
  const approvals = value("approval_policy");
  const sandbox = value("sandbox_mode");
  if (sandbox === "danger-full-access" && approvals === "never")
    return [
      {
        name: "mode",
        status: "warn",
        message: `${file} sets sandbox_mode "danger-full-access" and approval_policy "never": the model runs any command anywhere without the person, answering for you included (SPEC §11)`,
        fix: "keep Codex's sandbox (workspace-write) or its approvals on",
      },
    ];
  if (sandbox === "danger-full-access")
    return [
      {
        name: "mode",
        status: "warn",
        message: `${file} sets sandbox_mode "danger-full-access": a command the model runs unasked can write outside the project (the client's records and dotagent's key included)`,
        fix: "keep Codex's sandbox (workspace-write)",
      },
    ];
  return [];
}
