// `dotagent doctor --client codex`: the Codex install as checks (src/core/doctor.ts's Check).
// The judgement is pure (checkCodex, tested with tables); readCodexFacts gathers what it judges:
// the manifest and its files, the hook lines in .codex/hooks.json, whether Codex trusts the
// project (it loads a project's .codex/ — agents and hooks — only then: test/codex/NOTES.md) and
// whether its config records this project's hooks as reviewed (it runs them only then), and
// whether `node` runs (every hook line starts it). Either trust missing: nothing is recorded, a failure.
import { homedir } from "node:os";
import { join } from "node:path";
import { checkCodexMode, checkHelperDamage, type Check } from "../../core/doctor.js";
import { gitRootOf } from "../../claude/trust.js";
import { nodeOnPathVersion } from "../../store/node-on-path.js";
import { readProjectText } from "../../store/read-file.js";
import { CODEX_HOOK_EVENTS } from "./hooks-json.js";
import { CODEX_HELPER, codexInstallState } from "./install.js";

export interface CodexFacts {
  readonly root: string;
  readonly manifest: boolean;
  readonly missing: readonly string[];
  readonly changed: readonly string[];
  /** Why the installed helper cannot run (an edited copy only; src/install/helper-damage.ts), or null. */
  readonly helperDamage: string | null;
  /** The dotagent hook lines found in .codex/hooks.json. */
  readonly hooks: readonly string[];
  /** The events whose dotagent entry an earlier install wrote without this version's matcher. */
  readonly olderHooks: readonly string[];
  /** The git repository's root holding the project (Codex may record the trust there), or null. */
  readonly gitRoot: string | null;
  /** The Codex config read for trust (null: none there). */
  readonly config: string | null;
  readonly configText: string | null;
  /** `node --version` as the hooks would run it, or null when it does not run. */
  readonly node: string | null;
}

/**
 * Whether config.toml trusts this project: a `[projects."<folder>"]` table with trust_level =
 * "trusted" for the project or its git root (Codex records the trust of a folder inside a
 * repository at the repository's root).
 */
export function projectTrusted(configText: string, root: string, gitRoot: string | null = null): boolean {
  return [root, ...(gitRoot === null ? [] : [gitRoot])].some((folder) => {
    const header = `[projects.${JSON.stringify(folder)}]`;
    const at = configText.indexOf(header);
    if (at === -1) return false;
    const table = configText.slice(at + header.length).split(/\n\s*\[/)[0] ?? "";
    return /^\s*trust_level\s*=\s*"trusted"\s*$/m.test(table);
  });
}

/** Whether config.toml records a reviewed (trusted) hook of this project's .codex/hooks.json (`[hooks.state."<root>/.codex/hooks.json:<event>:…"] trusted_hash`). */
export function hooksTrusted(configText: string, root: string): boolean {
  const prefix = `[hooks.state.${JSON.stringify(`${root}/.codex/hooks.json:`).slice(0, -1)}`;
  return configText
    .split(/\n(?=\s*\[)/)
    .some((table) => table.trimStart().startsWith(prefix) && /^\s*trusted_hash\s*=/m.test(table));
}

export function checkCodex(facts: CodexFacts): Check[] {
  const checks: Check[] = [];
  const reinstall = "run `dotagent install --client codex`";
  if (!facts.manifest) {
    checks.push({
      name: "install",
      status: "fail",
      message: `dotagent is not installed for Codex in ${facts.root} (no .codex/.dotagent-install.json)`,
      fix: reinstall,
    });
  } else if (facts.missing.length > 0) {
    checks.push({
      name: "install",
      status: "fail",
      message: `the Codex install misses ${facts.missing.length} file(s): ${facts.missing.slice(0, 3).join(", ")}`,
      fix: reinstall,
    });
  } else {
    checks.push({
      name: "install",
      status: facts.changed.length > 0 ? "warn" : "ok",
      message:
        facts.changed.length > 0
          ? `installed for Codex; changed since: ${facts.changed.slice(0, 3).join(", ")}`
          : "installed for Codex (.agents/skills, .codex/agents)",
      fix:
        facts.changed.length > 0
          ? "keep your edits, or remove the files and run `dotagent install --client codex`"
          : null,
    });
  }
  if (facts.helperDamage !== null)
    checks.push(
      checkHelperDamage(
        facts.root,
        CODEX_HELPER,
        facts.helperDamage,
        `${reinstall} (it replaces a helper that cannot run)`,
      ),
    );
  const missingEvents = CODEX_HOOK_EVENTS.filter(
    ([, event]) => !facts.hooks.some((h) => h.includes(` hook ${event} --client codex`)),
  ).map(([name]) => name);
  checks.push(
    missingEvents.length === 0
      ? {
          name: "hook",
          status: "ok",
          message:
            facts.olderHooks.length === 0
              ? `.codex/hooks.json has dotagent's ${CODEX_HOOK_EVENTS.length} hooks`
              : `.codex/hooks.json has dotagent's ${CODEX_HOOK_EVENTS.length} hooks, ${facts.olderHooks.join(", ")} as an earlier install wrote it (without its matcher it starts Node after every tool call; this version's runs only after a wait_agent)`,
          fix: facts.olderHooks.length === 0 ? null : reinstall,
        }
      : {
          name: "hook",
          status: "fail",
          message: `.codex/hooks.json lacks dotagent's hook for ${missingEvents.join(", ")}`,
          fix: reinstall,
        },
  );
  const trusted = facts.configText !== null && projectTrusted(facts.configText, facts.root, facts.gitRoot);
  const config = facts.config ?? "its config.toml";
  checks.push(
    trusted
      ? { name: "trust", status: "ok", message: `Codex trusts ${facts.root} (${facts.config})`, fix: null }
      : {
          name: "trust",
          status: "fail",
          message: `Codex does not trust ${facts.root} (no trust_level = "trusted" for it in ${config}): it loads no .codex/ there, so no agent of dotagent's and none of its hooks run, and nothing is recorded`,
          fix: `run \`codex\` in ${facts.root} and answer yes when it asks whether you trust the folder (or \`codex exec --trust …\`)`,
        },
  );
  checks.push(
    facts.configText !== null && hooksTrusted(facts.configText, facts.root)
      ? { name: "hooks", status: "ok", message: `Codex has trusted this project's hooks (${facts.config})`, fix: null }
      : {
          name: "hooks",
          status: "fail",
          message: `Codex has not trusted this project's .codex/hooks.json (no trusted_hash for it in ${config}): it runs none of dotagent's hooks until the person reviews them (\`codex exec\` says nothing), so nothing is recorded`,
          fix: `run \`codex\` in ${facts.root} and choose "Trust all and continue" when it shows "Hooks need review"; automation in a vetted folder: \`codex exec --dangerously-bypass-hook-trust\``,
        },
  );
  if (facts.config !== null) checks.push(...checkCodexMode(facts.configText, facts.config));
  checks.push(
    facts.node !== null
      ? { name: "hook-node", status: "ok", message: `the hooks' \`node\` runs (${facts.node})`, fix: null }
      : {
          name: "hook-node",
          status: "fail",
          message: "`node` does not run from this environment: Codex starts each dotagent hook with it",
          fix: "put Node.js 20.19 or later on the PATH Codex gets",
        },
  );
  return checks;
}

export function readCodexFacts(root: string): CodexFacts {
  const state = codexInstallState(root);
  const config = join(process.env.CODEX_HOME || join(homedir(), ".codex"), "config.toml");
  const read = readProjectText(config, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  const node = nodeOnPathVersion();
  return {
    root,
    gitRoot: gitRootOf(root),
    ...state,
    config: read.kind === "ok" ? config : null,
    configText: read.kind === "ok" ? read.text : null,
    node,
  };
}
