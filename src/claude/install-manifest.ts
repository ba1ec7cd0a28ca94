// .claude/.dotagent-install.json: what `dotagent install` wrote (each file's sha256), so a later
// install updates only files nobody changed, and `--uninstall` removes exactly what was added.
import { createHash } from "node:crypto";
import { readProjectText } from "../store/read-file.js";
import { join } from "node:path";

export const MANIFEST = ".dotagent-install.json";

export interface InstallManifest {
  version: 1;
  /** The dotagent version that last wrote the files (absent in manifests of builds before 0.1.0). */
  dotagent_version?: string;
  files: Array<{ path: string; sha256: string }>;
  dirs: string[];
  hook_command: string | null;
  /** The permission rule install added to settings.json (absent: none added). */
  permission_rule?: string | null;
  settings_created: boolean;
  settings_original: string | null;
  /** The project's .gitignore lines install added (path relative to the .claude folder); absent: none. */
  gitignore?: { path: string; lines: string[]; created: boolean } | null;
}

export const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** The manifest in a .claude folder, or null when there is none (or it does not parse). */
export function readInstallManifest(target: string): InstallManifest | null {
  const read = readProjectText(join(target, MANIFEST), { maxBytes: 16 * 1024 * 1024, links: "refuse" });
  if (read.kind !== "ok") return null;
  try {
    const value = JSON.parse(read.text) as InstallManifest;
    return value !== null && typeof value === "object" && Array.isArray(value.files) ? value : null;
  } catch {
    return null;
  }
}

export function emptyManifest(): InstallManifest {
  return { version: 1, files: [], dirs: [], hook_command: null, settings_created: false, settings_original: null };
}

/**
 * The version written into the first lines of the bundled CLI by the build (`// dotagent X.Y.Z`),
 * read without running it; null for a helper built before the marker existed.
 */
export function helperVersion(head: string): string | null {
  return /^\/\/ dotagent (\S+)$/m.exec(head.slice(0, 512))?.[1] ?? null;
}
