// What `doctor` finds of dotagent's Claude Code integration: installs by `dotagent install`
// (a .claude folder with the install manifest) and plugin installs (Claude Code's
// plugins/installed_plugins.json). Reads only; never loads globby or the cold half.
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { checkHelperVersion, type Check } from "../core/doctor.js";
import { helperVersion, readInstallManifest, sha256 } from "./install-manifest.js";
import { hasHook, hookCommand, readSettings, type Scope } from "./settings.js";
import { count } from "../core/words.js";

export const HELPER = "skills/checkpoint/scripts/dotagent.mjs";
/** What every install must hold for /develop, the checkpoint protocol and the agents to work. */
export const REQUIRED_FILES = [
  "skills/checkpoint/SKILL.md",
  HELPER,
  "skills/develop/SKILL.md",
  ...["pm", "architect", "roundtable", "executor", "qa", "reflector"].map((a) => `agents/${a}.md`),
];

/** The first bytes of a file (the helper's version marker is in its first lines), or null. */
export function readHead(file: string, bytes = 512): string | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** Checks of one `dotagent install` target, or [] when dotagent is not installed there. */
export function inspectInstall(scope: Scope, target: string, cliVersion: string): Check[] {
  const manifest = readInstallManifest(target);
  if (manifest === null) return [];
  const where = `${scope} (${target})`;
  const checks: Check[] = [];
  const owned = new Map(manifest.files.map((f) => [f.path, f.sha256]));
  const missing = REQUIRED_FILES.filter((f) => !existsSync(join(target, f))).concat(manifest.files.map((f) => f.path).filter((f) => !REQUIRED_FILES.includes(f) && !existsSync(join(target, f))));
  const edited = manifest.files.filter((f) => existsSync(join(target, f.path)) && sha256(readFileSync(join(target, f.path))) !== f.sha256).map((f) => f.path);
  const by = manifest.dotagent_version ? ` by dotagent ${manifest.dotagent_version}` : "";
  if (missing.length > 0) {
    checks.push({ name: "install", status: "fail", message: `${where}: ${count(missing.length, "file")} missing: ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", …" : ""}`, fix: `run \`dotagent install${scope === "user" ? " --scope user" : ""}\`` });
  } else {
    const note = edited.length > 0 ? `; ${edited.length} edited by you (kept on upgrade): ${edited.slice(0, 3).join(", ")}${edited.length > 3 ? ", …" : ""}` : "";
    checks.push({ name: "install", status: "ok", message: `${where}: skills and agents installed${by}${note}`, fix: null });
  }
  if (owned.has(HELPER) || existsSync(join(target, HELPER))) {
    const head = readHead(join(target, HELPER));
    if (head !== null) checks.push(checkHelperVersion(where, helperVersion(head), cliVersion, `run \`dotagent install${scope === "user" ? " --scope user" : ""}\` (it updates the files you did not change)`));
  }
  const settingsFile = join(target, "settings.json");
  let settings;
  try {
    settings = readSettings(settingsFile);
  } catch {
    return checks; // the settings check names it
  }
  const command = hookCommand(scope, target);
  checks.push(
    hasHook(settings.value, command)
      ? { name: "hook", status: "ok", message: `${where}: SessionStart hook in settings.json`, fix: null }
      : { name: "hook", status: "fail", message: `${where}: settings.json has no dotagent SessionStart hook, so resumed sessions are not briefed`, fix: `run \`dotagent install${scope === "user" ? " --scope user" : ""}\`` },
  );
  return checks;
}

interface PluginEntry {
  installPath?: unknown;
  version?: unknown;
}

/** Checks of each dotagent plugin Claude Code has installed under this config folder. */
export function inspectPlugins(claudeDir: string, cliVersion: string): Check[] {
  let registry: { plugins?: Record<string, unknown> };
  try {
    registry = JSON.parse(readFileSync(join(claudeDir, "plugins", "installed_plugins.json"), "utf8")) as typeof registry;
  } catch {
    return [];
  }
  const checks: Check[] = [];
  for (const [id, value] of Object.entries(registry.plugins ?? {})) {
    if (!id.startsWith("dotagent@")) continue;
    for (const entry of (Array.isArray(value) ? value : [value]) as PluginEntry[]) {
      if (typeof entry?.installPath !== "string") continue;
      const where = `plugin ${id} (${entry.installPath})`;
      const missing = [...REQUIRED_FILES, "hooks/hooks.json"].filter((f) => !existsSync(join(entry.installPath as string, f)));
      checks.push(
        missing.length === 0
          ? { name: "install", status: "ok", message: `${where}: skills, agents and hook installed`, fix: null }
          : { name: "install", status: "fail", message: `${where}: ${count(missing.length, "file")} missing: ${missing.slice(0, 3).join(", ")}`, fix: `run \`claude plugin update ${id}\`, or uninstall and install it again` },
      );
      const head = readHead(join(entry.installPath, HELPER));
      if (head !== null) checks.push(checkHelperVersion(where, helperVersion(head), cliVersion, `run \`claude plugin update ${id}\``));
    }
  }
  return checks;
}
