// `dotagent doctor --client copilot`: the Copilot install is complete (the manifest's files there
// and unchanged, the hooks pointing at this project's helper), the folder is trusted (Copilot runs
// a repository's hooks only in a trusted folder: untrusted, nothing is recorded, a failure), and `node`, which
// every hook line runs, is on PATH. The judgement is pure (copilotChecks); gatherCopilotFacts reads.
import { homedir } from "node:os";
import { join, resolve, sep } from "node:path";
import { checkHelperDamage, checkHelperVersion, type Check } from "../../core/doctor.js";
import { helperVersion } from "../../claude/install-manifest.js";
import { lookAt } from "../../claude/install-paths.js";
import { nodeOnPathVersion } from "../../store/node-on-path.js";
import { readProjectText } from "../../store/read-file.js";
import { helperDamage } from "../../install/helper-damage.js";
import { COPILOT_MANIFEST, HELPER, HOOK_ENTRY, readCopilotManifest } from "./install.js";
import { COPILOT_MATCHERS, copilotHookCommand, HOOKS_FILE } from "./hooks-file.js";
import { COPILOT_EVENTS, type CopilotHookEvent } from "./hook-io.js";

export interface CopilotFacts {
  target: string;
  installed: boolean;
  missing: string[];
  edited: string[];
  /** The hook events whose line in hooks/dotagent.json is not this project's helper with --client copilot. */
  wrongHooks: string[];
  /** The hook events whose dotagent line an earlier install wrote without this version's matcher. */
  olderHooks: string[];
  helperVersion: string | null;
  /** Why the installed helper cannot run (an edited copy only; src/install/helper-damage.ts), or null. */
  helperDamage: string | null;
  /** null: no readable ~/.copilot/config.json. */
  trustedFolders: string[] | null;
  configFile: string;
  allowAll: boolean;
  root: string;
  node: string | null;
}

const FIX_INSTALL = "run `dotagent install --client copilot` in the project";

/** Whether `root` is a trusted folder or inside one. Pure. */
export function isTrusted(root: string, folders: readonly string[]): boolean {
  return folders.some((f) => {
    const folder = resolve(f);
    return root === folder || root.startsWith(folder.endsWith(sep) ? folder : folder + sep);
  });
}

/**
 * The trusted folders of Copilot's config.json, or null when it does not parse. Copilot rewrites
 * the file with `//` comment lines on top and the key `trustedFolders`; it reads `trusted_folders`
 * too (and rewrites it). Pure.
 */
export function trustedFoldersIn(text: string): string[] | null {
  try {
    const value = JSON.parse(text.replace(/^\s*\/\/.*$/gm, "")) as {
      trustedFolders?: unknown;
      trusted_folders?: unknown;
    } | null;
    if (value === null || typeof value !== "object") return null;
    return [value.trustedFolders, value.trusted_folders].flatMap((list) =>
      Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [],
    );
  } catch {
    return null;
  }
}

export function copilotChecks(facts: CopilotFacts, cli: string): Check[] {
  if (!facts.installed)
    return [
      {
        name: "install",
        status: "fail",
        message: `dotagent is not installed for Copilot CLI: no ${COPILOT_MANIFEST} in ${facts.target}`,
        fix: FIX_INSTALL,
      },
    ];
  const checks: Check[] = [];
  if (facts.missing.length > 0)
    checks.push({
      name: "install",
      status: "fail",
      message: `${facts.target}: ${facts.missing.length} installed file(s) missing (${facts.missing.slice(0, 3).join(", ")})`,
      fix: FIX_INSTALL,
    });
  else if (facts.edited.length > 0)
    checks.push({
      name: "install",
      status: "warn",
      message: `${facts.target}: ${facts.edited.length} file(s) edited since install (${facts.edited.slice(0, 3).join(", ")}): kept as they are`,
      fix: "move them away and run `dotagent install --client copilot` to take this version's copy",
    });
  else
    checks.push({
      name: "install",
      status: "ok",
      message: `${facts.target}: skills, agents and hooks for Copilot CLI`,
      fix: null,
    });
  checks.push(
    facts.wrongHooks.length === 0
      ? {
          name: "hook",
          status: "ok",
          message:
            facts.olderHooks.length === 0
              ? `${HOOKS_FILE}: every dotagent hook runs this project's helper with --client copilot`
              : `${HOOKS_FILE}: every dotagent hook runs this project's helper with --client copilot, ${facts.olderHooks.join(", ")} as an earlier install wrote it (without its matcher it starts Node after every tool call; this version's runs only after a task)`,
          fix: facts.olderHooks.length === 0 ? null : FIX_INSTALL,
        }
      : {
          name: "hook",
          status: "fail",
          message: `${HOOKS_FILE}: ${facts.wrongHooks.join(", ")} do not run this project's helper (was the project moved?)`,
          fix: FIX_INSTALL,
        },
  );
  checks.push(
    facts.helperDamage !== null
      ? checkHelperDamage(
          facts.target,
          HELPER,
          facts.helperDamage,
          `${FIX_INSTALL} (it replaces a helper that cannot run)`,
        )
      : checkHelperVersion(`${facts.target}`, facts.helperVersion, cli, FIX_INSTALL),
  );
  if (facts.allowAll)
    checks.push({
      name: "trust",
      status: "ok",
      message: "COPILOT_ALLOW_ALL=true trusts the working folder",
      fix: null,
    });
  else if (facts.trustedFolders !== null && isTrusted(facts.root, facts.trustedFolders))
    checks.push({
      name: "trust",
      status: "ok",
      message: `${facts.root} is a trusted folder (${facts.configFile})`,
      fix: null,
    });
  else
    checks.push({
      name: "trust",
      status: "fail",
      message: `Copilot CLI does not trust ${facts.root} (not among the trusted folders in ${facts.configFile}): it runs none of the repository's hooks there, so dotagent records nothing`,
      fix: `run \`copilot\` in ${facts.root} and answer yes when it asks whether you trust the folder`,
    });
  checks.push(
    facts.node === null
      ? {
          name: "path",
          status: "fail",
          message: "`node` is not on PATH: Copilot runs every dotagent hook line with it",
          fix: "install Node.js 20.19 or later and put it on PATH",
        }
      : { name: "path", status: "ok", message: `the hooks' \`node\` is ${facts.node}`, fix: null },
  );
  return checks;
}

export function gatherCopilotFacts(root: string, env: NodeJS.ProcessEnv = process.env): CopilotFacts {
  const target = join(root, ".github");
  const read = readCopilotManifest(target);
  const missing: string[] = [];
  const edited: string[] = [];
  let damage: string | null = null;
  for (const file of read?.manifest.files ?? []) {
    const found = lookAt(target, file.path);
    if (found.kind === "missing" || found.kind === "refused") missing.push(file.path);
    else if (found.hash !== file.sha256) {
      const damaged = file.path === HELPER ? helperDamage(found.bytes) : null;
      if (damaged !== null) damage = damaged;
      else edited.push(file.path);
    }
  }
  const hooksText = readProjectText(join(target, HOOKS_FILE), { maxBytes: 1024 * 1024, links: "follow" });
  const wrongHooks: string[] = [];
  const olderHooks: string[] = [];
  let hooks: Record<string, Array<{ bash?: unknown; matcher?: unknown }>> = {};
  try {
    hooks = hooksText.kind === "ok" ? ((JSON.parse(hooksText.text) as { hooks?: typeof hooks }).hooks ?? {}) : {};
  } catch {
    // judged below: every event's line is missing
  }
  for (const [event, name] of Object.entries(COPILOT_EVENTS) as Array<[CopilotHookEvent, string]>) {
    // dotagent.cjs's line, or an earlier install's running dotagent.mjs (both work).
    const lines = [HOOK_ENTRY, HELPER].map((file) => copilotHookCommand(join(target, file), event));
    const ours = (hooks[name] ?? []).filter((h) => lines.includes(h.bash as string));
    if (ours.length === 0) wrongHooks.push(name);
    else if (ours.some((h) => h.matcher !== COPILOT_MATCHERS[event])) olderHooks.push(name);
  }
  const helper = readProjectText(join(target, HELPER), { maxBytes: 64 * 1024 * 1024, links: "follow" });
  const home = env.COPILOT_HOME || join(env.HOME || homedir(), ".copilot");
  const configFile = join(home, "config.json");
  const config = readProjectText(configFile, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  const trustedFolders = config.kind === "ok" ? trustedFoldersIn(config.text) : null;
  const node = nodeOnPathVersion(env);
  return {
    target,
    installed: read !== null,
    missing,
    edited,
    wrongHooks: read === null ? [] : wrongHooks,
    olderHooks: read === null ? [] : olderHooks,
    helperVersion: helper.kind === "ok" ? helperVersion(helper.text.slice(0, 4096)) : null,
    helperDamage: damage,
    trustedFolders,
    configFile,
    allowAll: env.COPILOT_ALLOW_ALL?.trim() === "true",
    root,
    node,
  };
}
