// The one interface every client dotagent works in stands behind (SPEC §11 Claude Code, §22 the
// others): what shows a person uses it, where install writes, the word that starts /develop, and
// three parts loaded only by the commands that need them. Claude Code's hook JSON is the common
// language: a client's hooks turn its input into Claude-shaped input for src/claude/hooks.ts and
// its Claude-shaped answers back into what the client reads.
//
//   ClientAdapter     the descriptor (src/clients/index.ts): hot, tiny, imports no client code
//   ClientHooks       `dotagent hook <event> --client <id>`: its events, each answered
//                     (src/clients/hook-parts.ts: a dynamic import, as only `dotagent hook` runs them)
//   ClientColdParts   install, uninstall, doctor's checks, the skill text: in the CLI's cold half
//                     (src/clients/cold-parts.ts, reached through src/cli/cold.ts)
// Each is keyed by the adapter's id, so the cold half carries no hook code and the hooks no install
// code (src/clients/registry.test.ts checks every client has every part).
import type { Check } from "../core/doctor.js";
import type { OpContext } from "../ops/op-context.js";
import type { GitignorePlan, InstallPlanEntry } from "../install/plan-files.js";
import type { ProjectPaths } from "../store/project.js";

/** Every client, in the order doctor and install name them; the default (`--client` left out) first. */
export const CLIENT_IDS = ["claude", "copilot", "codex"] as const;
export type ClientId = (typeof CLIENT_IDS)[number];
export type InstallScope = "project" | "user";

export interface ClientAdapter {
  readonly id: ClientId;
  /** The person-facing name (doctor's headings, install's closing lines). */
  readonly name: string;
  /** The name as detection says it after a Claude Code install ("GitHub Copilot CLI"). */
  readonly fullName: string;
  /** The command on PATH that shows the person uses it (and they start it with). */
  readonly command: string;
  /** The project file or folder that shows it is used here. */
  readonly folder: string;
  /** Its install manifest, relative to the project (a project install). */
  readonly manifest: string;
  /** The scopes install takes for it, "project" first. */
  readonly scopes: readonly InstallScope[];
  /** A one-scope client: the usage error for any other `--scope`. */
  readonly scopeRefusal: string | null;
  /** What the person types to start: `/develop`, or Codex's `$develop`. */
  readonly startWord: "/develop" | "$develop";
  /** What the person does when the client first opens the folder (install's closing lines). */
  readonly trust: string;
}

/** An install's options, the same for every client: `root` the project (a user install finds its own folder from the scope). */
export interface ClientInstallOptions {
  readonly root: string;
  readonly scope: InstallScope;
  readonly dryRun: boolean;
  readonly sourceRoot: string;
  readonly helperScript: Buffer;
  /** dotagent.cjs, the CommonJS entry the hooks run (SPEC §13 "Start-up"), written beside the helper. */
  readonly entryScript: Buffer;
  readonly version: string;
}

export interface ClientUninstallOptions {
  readonly root: string;
  readonly scope: InstallScope;
  readonly dryRun: boolean;
}

/** An install's or uninstall's result: the --json object (the client's own fields kept) and lines only the plain output says. */
export interface ClientInstallOutcome {
  readonly result: {
    readonly client: ClientId;
    readonly scope: InstallScope;
    readonly target: string;
    readonly dry_run: boolean;
    readonly changes: InstallPlanEntry[];
    readonly gitignore: GitignorePlan["outcome"];
  } & Record<string, unknown>;
  readonly notes: readonly string[];
}

/** What doctor asks of a client in a project: whether dotagent is installed for it, then its checks. */
export interface ClientDoctor {
  installed(): boolean;
  /** `anyClient`: no --client was named (a missing install then says how to install any client). */
  checks(anyClient: boolean): Check[];
}

export interface ClientColdParts {
  install(options: ClientInstallOptions): ClientInstallOutcome;
  uninstall(options: ClientUninstallOptions): ClientInstallOutcome;
  doctor(paths: ProjectPaths, version: string): ClientDoctor;
  /** Doctor adds the checks of `dotagent run` (the Agent SDK and the login) with this client's. */
  readonly runsHeadless: boolean;
  /** One skill's SKILL.md (skills/*, written for Claude Code) as this client reads it, installed in `skillDir`. */
  skillText(source: string, place: { readonly skillDir: string }): string;
}

export type HookInput = Record<string, unknown>;
export type HookOutput = Record<string, unknown> | null;

/** The session-start hook's two answers: the briefing for the model and the line for the person. */
export interface SessionStartTold {
  readonly briefing: string | null;
  readonly line: string | null;
}

/** What `dotagent hook` lends a client's hooks: the parts that need the command's context. */
export interface HookHost {
  /** The helper the hook runs as (process.argv[1]). */
  readonly helper: string;
  /** The project a hook works on: --dir, else the folder the client names in `variable`, else the input's cwd. */
  paths(variable: string, input: HookInput): ProjectPaths;
  /** An operation's context for dotagent's bookkeeping (never the model's). */
  op(
    paths: ProjectPaths,
    options?: { warn?: (message: string) => void; modelGitReadOnly?: (() => boolean) | undefined },
  ): OpContext;
  /** A warning on stderr, as every command gives one. */
  warn(message: string): void;
  /** The session-start briefing and line (src/cli/commands/hook.ts); never throws. `afterPrompt`: the client shows the line under the person's first prompt. */
  told(
    input: HookInput,
    command: string,
    modelGitReadOnly?: () => boolean,
    afterPrompt?: boolean,
  ): Promise<SessionStartTold>;
}

/** A hook's answer: JSON on stdout, a line on stderr, and its exit status (2: Copilot shows stderr). */
export interface HookReply {
  readonly stdout: Record<string, unknown> | null;
  readonly stderr: string | null;
  readonly exitCode: 0 | 2;
}

export const NO_REPLY: HookReply = { stdout: null, stderr: null, exitCode: 0 };

export interface ClientHooks {
  /** The events `dotagent hook <event>` takes for this client. */
  readonly events: readonly string[];
  /** Answers one event (any word: an unknown one is said on stderr); reads the hook's stdin itself. */
  run(event: string | undefined, host: HookHost): Promise<HookReply>;
}
