// Set-ups made once per test file and copied for each test: a test pays for a folder copy instead
// of the spawned commands that reached its state (the command under test still runs as a user's).
// A template lives until the file's last test (never in tempProject's folders, which every test's
// removeTemps takes away). What a copy keeps and what it does not:
// - bytes: state files, events, the hand-edit record (.last-write.json holds digests, not inodes);
// - git: the repository and its branches; a linked worktree records absolute paths both ways (the
//   worktree's `.git` file, the main repository's `.git/worktrees/NAME/gitdir`), so both are
//   pointed at the copy. (`git worktree repair` run in the copy would follow the copied `.git`
//   file back to the template and point the template's record at the copy instead.)
// - not the checkout's key: it is bound to the folder (src/store/checkout-key.ts), so a template
//   must hold no record sealed with it (a person's reply, a decision asked, an approved command);
//   a copy of one is a clone, whose sealed records are history.
// - owner pids: the same process for every copy (liveOwner lives until the file's end).
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tempProject } from "./cli.js";
import { atFileEnd } from "./file-end.js";

const templates = new Map<string, string>();
let home: string | undefined;

atFileEnd(() => {
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
  home = undefined;
  templates.clear();
});

/** A copy of the template `key` (made by `make` in an empty folder the first time), in a fresh temp folder. */
export function copyOfTemplate(key: string, make: (dir: string) => void): string {
  let template = templates.get(key);
  if (template === undefined || !existsSync(template)) {
    home ??= mkdtempSync(join(tmpdir(), "dotagent-templates-"));
    template = mkdtempSync(join(home, "t-"));
    make(template);
    expectNoFileNames(template);
    templates.set(key, template);
  }
  return copyProject(template);
}

/** No file of the template names its folder (a copy would point back at the template), but git's worktree records, which a copy rewrites. */
function expectNoFileNames(template: string): void {
  const names = [template, realpathSync(template)];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.isFile() &&
        !(entry.name === ".git" || (entry.name === "gitdir" && dir.includes("/.git/worktrees/")))
      ) {
        const text = readFileSync(path, "latin1");
        if (names.some((name) => text.includes(name)))
          throw new Error(`${path} names its template's folder: a copy of it would point back at the template`);
      }
    }
  };
  walk(template);
}

/** `from` copied into a fresh temp folder (links kept as links), its git worktrees pointed at the copy. */
export function copyProject(from: string): string {
  const to = tempProject();
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  const admin = join(to, ".git/worktrees");
  if (!existsSync(admin)) return to;
  for (const name of readdirSync(admin)) {
    const record = join(admin, name, "gitdir");
    const dotGit = readFileSync(record, "utf8").trim();
    const prefix = [from, realpathSync(from)].find((dir) => dotGit.startsWith(`${dir}/`));
    if (prefix === undefined)
      throw new Error(`worktree ${name} of ${from} is outside it (${dotGit}): a copy cannot keep it`);
    const moved = `${to}${dotGit.slice(prefix.length)}`;
    writeFileSync(record, `${moved}\n`);
    writeFileSync(moved, `gitdir: ${join(admin, name)}\n`);
  }
  return to;
}
