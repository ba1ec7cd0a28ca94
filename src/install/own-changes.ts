// Which of the main checkout's uncommitted files a project install of Copilot CLI or Codex CLI
// wrote (SPEC §19): never the person's changes, as `.claude/` never is. The round's tasks need
// none of them in their worktrees: in every client an executor is a sub-agent of the session, whose
// hooks, agent definitions and helper are read from the main checkout (the helper by its absolute
// path), and its worktree is only named in its prompt. So an install left uncommitted does not make
// the person decide whether to commit "their" changes, and their "yes" does not commit it.
//
// Counted as the install's: each client's manifest (`.github/.dotagent-copilot-install.json`,
// `.codex/.dotagent-install.json`); a file its manifest lists while its bytes still hash to what
// install recorded (an installed file the person edited since is theirs); Codex's `.codex/hooks.json`
// when it differs from HEAD's only by dotagent's own hook entries (the person's hooks there are
// theirs). The manifests come from the project and are not trusted: an entry counts only when it
// has the shape of a file that install writes (src/clients/copilot/install.ts, codex/install.ts).
import { join } from "node:path";
import { parseOwnedEntries, readManifestJson } from "../claude/install-manifest.js";
import { lookAt } from "../claude/install-paths.js";
import { hasNoHooks, withoutDotagentHooks, type HooksFile } from "../clients/codex/hooks-json.js";
import { readProjectText } from "../store/read-file.js";

interface InstallRecord {
  /** The client's manifest, relative to the project root. */
  readonly manifest: string;
  /** The folder its entries are relative to, relative to the project root ("" for the root). */
  readonly base: string;
  readonly client: "copilot" | "codex";
  /** The files that install writes, by shape (relative to `base`). */
  readonly shape: RegExp;
}

const RECORDS: readonly InstallRecord[] = [
  {
    manifest: ".github/.dotagent-copilot-install.json",
    base: ".github",
    client: "copilot",
    shape: /^skills\/(develop|checkpoint|status)\/[\w./-]+$|^agents\/[\w-]+\.agent\.md$|^hooks\/dotagent\.json$/,
  },
  {
    manifest: ".codex/.dotagent-install.json",
    base: "",
    client: "codex",
    shape: /^\.agents\/skills\/(develop|checkpoint|status)\/[\w./-]+$|^\.codex\/agents\/[\w-]+\.toml$/,
  },
];

const CODEX_HOOKS = ".codex/hooks.json";

/**
 * Of `changed` (paths relative to the project root `root`), those a Copilot or Codex install wrote
 * and nobody changed since. `headText`: a file's text at HEAD (relative to the root), or undefined
 * when HEAD has none.
 */
export function installWrote(
  root: string,
  changed: readonly string[],
  headText: (rel: string) => string | undefined,
): Set<string> {
  const wrote = new Set<string>();
  const candidates = new Set(changed);
  for (const record of RECORDS) {
    if (!candidates.has(record.manifest) && ![...candidates].some((p) => installedShape(record, p))) continue;
    const value = readManifestJson(join(root, record.manifest));
    if (value === null || value.client !== record.client) continue;
    if (candidates.has(record.manifest)) wrote.add(record.manifest);
    const { files } = parseOwnedEntries(value, (p) => (record.shape.test(p) ? null : "is not a file install writes"));
    const target = join(root, record.base);
    for (const file of files) {
      const rel = record.base === "" ? file.path : `${record.base}/${file.path}`;
      if (!candidates.has(rel)) continue;
      const found = lookAt(target, file.path);
      if (found.kind === "file" && found.hash === file.sha256) wrote.add(rel);
    }
  }
  if (candidates.has(CODEX_HOOKS) && onlyDotagentHooks(root, headText(CODEX_HOOKS))) wrote.add(CODEX_HOOKS);
  return wrote;
}

function installedShape(record: InstallRecord, rel: string): boolean {
  if (record.base === "") return record.shape.test(rel);
  return rel.startsWith(`${record.base}/`) && record.shape.test(rel.slice(record.base.length + 1));
}

/** Codex's hooks.json differs from HEAD's (none: no hook at all) only by dotagent's entries. */
function onlyDotagentHooks(root: string, head: string | undefined): boolean {
  const read = readProjectText(join(root, CODEX_HOOKS), { maxBytes: 64 * 1024 * 1024, links: "refuse" });
  const now = read.kind === "ok" ? parseHooks(read.text) : undefined;
  if (now === undefined) return false;
  const rest = withoutDotagentHooks(now);
  if (head === undefined) return hasNoHooks(rest);
  const before = parseHooks(head);
  return before !== undefined && JSON.stringify(rest) === JSON.stringify(withoutDotagentHooks(before));
}

function parseHooks(text: string): HooksFile | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as HooksFile) : undefined;
  } catch {
    return undefined;
  }
}
