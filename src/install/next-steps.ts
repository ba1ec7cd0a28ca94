// What `dotagent install` says last (SPEC §11, §22): what it did, in plain words, and what the
// person does next — commit exactly the paths this install wrote (a teammate's clone then has
// the workflow), then open the client and type the first command. The lines are pure
// (installClosing); uncommittedPaths asks git which of those paths are not committed yet, so the
// printed git line always has something to commit and never names an ignored path.
import { spawnSync } from "node:child_process";
import { relative, resolve, sep } from "node:path";
import { count } from "../core/words.js";
import type { GitignorePlan, InstallPlanEntry } from "./plan-files.js";
import { adapterOf, type ClientId } from "../clients/index.js";

export interface InstallDone {
  readonly client: ClientId;
  readonly scope: "project" | "user";
  readonly root: string;
  /** The folder the changes' paths are relative to. */
  readonly target: string;
  readonly changes: readonly InstallPlanEntry[];
  readonly gitignore: GitignorePlan["outcome"];
}

/** A change's path relative to the project root, `/`-separated. */
const fromRoot = (done: InstallDone, path: string) =>
  relative(done.root, resolve(done.target, path)).split(sep).join("/");

/**
 * The paths (relative to the project root) a project install wrote, to commit: a folder of
 * several of its files as one path (`.claude/skills`), a single file as itself
 * (`.claude/settings.json`, `.gitignore`), and the install's manifest. Empty for a user install.
 * Files install left alone (`skip`) are not its own. Pure.
 */
export function commitPaths(done: InstallDone): string[] {
  if (done.scope !== "project") return [];
  const files = done.changes.filter((c) => c.action !== "skip").map((c) => fromRoot(done, c.path));
  const group = (file: string) => {
    const parts = file.split("/");
    return parts.length > 2 ? parts.slice(0, 2).join("/") : file;
  };
  const sizes = new Map<string, number>();
  for (const file of files) sizes.set(group(file), (sizes.get(group(file)) ?? 0) + 1);
  const paths = files.map((file) => ((sizes.get(group(file)) ?? 0) > 1 ? group(file) : file));
  // .gitignore last: the client's own files first, as a person reads them.
  return [
    ...new Set([
      ...paths.filter((p) => p !== ".gitignore"),
      adapterOf(done.client).manifest,
      ...paths.filter((p) => p === ".gitignore"),
    ]),
  ];
}

/** A word for a POSIX shell: as it is when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The closing lines of an install. `pending`: the commit paths git has not committed yet, or null
 * when the project is not in a git repository (nothing to commit then). `cwd`: where the person
 * runs dotagent (the lines say "here" when it is the project). Pure.
 */
export function installClosing(done: InstallDone, pending: readonly string[] | null, cwd: string): string[] {
  const client = adapterOf(done.client);
  const agents = done.changes.filter(
    (c) => c.action !== "skip" && c.action !== "remove" && /(^|\/)agents\/[^/]+$/.test(c.path),
  ).length;
  const ignoring =
    done.gitignore === "lines added" || done.gitignore === "lines updated" || done.gitignore === "lines already there";
  const where = done.scope === "user" ? ` in ${done.target} (every project)` : "";
  const lines = [
    `Installed for ${client.name}${where}: the ${client.startWord} command, ${count(agents, "agent")} and the hooks${ignoring ? "; .gitignore keeps memory/'s machine-local files out of git" : ""}.`,
  ];
  const here = cwd === done.root ? "here" : `in ${done.root}`;
  const open = `run \`${client.command}\` ${done.scope === "user" ? "in a project" : here}, ${client.trust}, and type ${client.startWord} <what to build>.`;
  if (pending === null || pending.length === 0) return [...lines, `Next: ${open}`];
  const git = cwd === done.root ? "git" : `git -C ${shellWord(done.root)}`;
  const paths = pending.map(shellWord).join(" ");
  return [
    ...lines,
    "Next: commit what install wrote, so the repository carries it:",
    `  ${git} add ${paths} && ${git} commit -m ${shellWord(`Add dotagent for ${client.name}`)} -- ${paths}`,
    `Then ${open}`,
  ];
}

/**
 * Which of `paths` (relative to `root`) hold changes git has not committed (new, changed, removed;
 * never an ignored file), or null when `root` is not in a git repository or git does not run.
 */
export function uncommittedPaths(root: string, paths: readonly string[]): string[] | null {
  if (paths.length === 0) return [];
  const git = (args: string[]) => spawnSync("git", ["-C", root, ...args], { encoding: "utf8", timeout: 30_000 });
  const prefix = git(["rev-parse", "--show-prefix"]);
  if (prefix.status !== 0) return null;
  const status = git(["status", "--porcelain", "-z", "--untracked-files=all", "--", ...paths]);
  if (status.status !== 0) return null;
  // Entries are `XY <path>` from the repository's root; a rename or copy carries its old path next.
  const changed: string[] = [];
  const fields = status.stdout.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    changed.push(entry.slice(3));
    if (/[RC]/.test(entry.slice(0, 2))) i++;
  }
  const at = prefix.stdout.trim();
  const inRoot = changed.filter((p) => p.startsWith(at)).map((p) => p.slice(at.length));
  return paths.filter((path) => inRoot.some((p) => p === path || p.startsWith(`${path}/`)));
}
