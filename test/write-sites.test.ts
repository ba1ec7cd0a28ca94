// Every file dotagent writes goes through one primitive, src/store/write-file.ts (SPEC §2
// "Writes"): a write that follows a link replaces or appends to whatever the link points to, and a
// clone or an agent can plant one. This test keeps the list of the raw file-system writes left in
// src/ equal to the code's, each with the reason it may stay raw, the way
// test/allow-grammar-shells.test.ts keeps the allow grammar's option tables equal to the CLI's. A
// new raw write anywhere fails it, with what to do.
//
// What counts as a raw write: any use of a node:fs or node:fs/promises function that creates,
// replaces, appends, moves, links or changes a file or folder (open counts whatever its flags: a
// read-only open is listed with that reason), write-file-atomic, tar's writing functions, and
// node:fs reached any other way (a namespace or default import, require, import(), getBuiltinModule).
// Removals (unlink, rm, rmdir) are not writes. Tests and test-support files are not scanned.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "./support/cli.js";

const FS_WRITES = [
  "writeFileSync",
  "appendFileSync",
  "openSync",
  "renameSync",
  "mkdirSync",
  "mkdtempSync",
  "copyFileSync",
  "cpSync",
  "linkSync",
  "symlinkSync",
  "truncateSync",
  "chmodSync",
  "lchmodSync",
  "chownSync",
  "lchownSync",
  "utimesSync",
  "lutimesSync",
  "createWriteStream",
  "writeFile",
  "appendFile",
  "open",
  "rename",
  "mkdir",
  "mkdtemp",
  "copyFile",
  "cp",
  "link",
  "symlink",
  "truncate",
  "chmod",
  "lchmod",
  "chown",
  "lchown",
  "utimes",
  "lutimes",
  "promises",
];
/** The modules whose named imports write, and which of their names do. */
const WRITERS: Record<string, readonly string[]> = {
  "node:fs": FS_WRITES,
  fs: FS_WRITES,
  "node:fs/promises": FS_WRITES,
  "fs/promises": FS_WRITES,
  tar: ["create", "c", "extract", "x", "replace", "r", "update", "u", "Unpack", "UnpackSync", "Pack", "PackSync"],
};
/** Any import of these is a write. */
const WRITING_PACKAGES = ["write-file-atomic"];

/** Comments out (a `//` only after a blank or at a line's start, so "https://" stays). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");

/**
 * The raw writes in one source text: "name×count" (×1 left out), sorted and joined by spaces;
 * "" when there are none. Pure: the unit cases below feed it texts.
 */
export function rawWrites(source: string): string {
  const text = withoutComments(source);
  const counts = new Map<string, number>();
  const add = (name: string, n = 1) => counts.set(name, (counts.get(name) ?? 0) + n);
  let body = text;
  for (const m of text.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["'];?/g)) {
    body = body.replace(m[0], "");
    const [, typeOnly, clause, module] = m as unknown as [string, string | undefined, string, string];
    if (typeOnly) continue;
    if (WRITING_PACKAGES.includes(module)) {
      add(module);
      continue;
    }
    const names = WRITERS[module];
    if (names === undefined) continue;
    const named = /\{([^}]*)\}/.exec(clause)?.[1] ?? "";
    const whole = clause
      .replace(/\{[^}]*\}/, "")
      .replace(/,/g, "")
      .trim();
    // A namespace or default import of node:fs reaches every function: a site of its own.
    if (whole !== "") add(`${module} as ${whole.replace(/^\*\s*as\s*/, "")}`);
    for (const spec of named
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "" && !s.startsWith("type "))) {
      const [name, alias = name] = spec.split(/\s+as\s+/) as [string, string?];
      if (!names.includes(name)) continue;
      const uses = body.match(new RegExp(`(?<![\\w$.])${alias!.replace(/\$/g, "\\$")}(?![\\w$])`, "g"))?.length ?? 0;
      if (uses > 0) add(name, uses);
    }
  }
  // node:fs reached without a static import.
  for (const m of text.matchAll(
    /\b(require|import|getBuiltinModule)\(\s*["'](?:node:)?(fs|fs\/promises|write-file-atomic|tar)["']\s*\)/g,
  ))
    add(`${m[1]}("${m[2]}")`);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => (n === 1 ? name : `${name}×${n}`))
    .join(" ");
}

/** Every source file of src/ (not tests, not test support), relative to the repository, `/`-separated. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.includes("test-support"))
        out.push(relative(REPO, path).split("\\").join("/"));
    }
  };
  walk(join(REPO, "src"));
  return out.sort();
}

/**
 * The raw writes that stay, by file: what the scan finds, and why each may stay raw. Anything
 * else writes through src/store/write-file.ts.
 */
const SITES: Record<string, [string, string]> = {
  "src/store/write-file.ts": [
    "copyFileSync linkSync mkdirSync×3 openSync×3 renameSync×2",
    "the primitive itself: every other write calls it",
  ],
  "src/store/fsync-dir.ts": ["openSync", "opens a folder read-only ('r') to fsync it; writes nothing"],
  "src/store/read-file.ts": ["openSync", "the one reader: O_RDONLY | O_NONBLOCK, never a write flag"],
  "src/store/events.ts": [
    "openSync×2",
    "reads the log's tail (the append's next seq, and readEventsTail for the SessionStart line): O_RDONLY | O_NOFOLLOW | O_NONBLOCK (the append is appendFileInside)",
  ],
  "src/store/git.ts": [
    "mkdtempSync openSync writeFileSync",
    "git's stdin when a call has input (Codex's sandbox refuses a pipe's shutdown, SPEC §19): a fresh mkdtemp folder in the OS temp dir, never the project; the file written with 'wx' (O_CREAT|O_EXCL: never through a link), opened read-only for git, then removed",
  ],
  "src/store/lock.ts": [
    "linkSync openSync renameSync writeFileSync",
    "lock: the temp lock is created with 'wx' (O_CREAT|O_EXCL: a link there fails with EEXIST, never followed), written through that descriptor, then link()ed into place (link never follows its target and fails when the name exists) or rename()d over a stale lock (a rename replaces a link itself); memory/state is checked to be a real folder (state-paths.ts) before any lock is taken",
  ],
  "src/archive/create-archive.ts": [
    "copyFile create link mkdir×3 mkdtemp rename writeFile",
    "archive create: archive-layout.ts assertRealFolders refuses a linked memory/, memory/state/, memory/reports/ or .archive/ first; every file is written into a staging folder mkdtemp just made (a fresh, unpredictable name), the reports copied in are walked with lstat (links are left out), the tar goes to a `.partial` name there and is link()ed to its final name (never overwriting)",
  ],
  "src/archive/restore-archive.ts": [
    "chmod cp mkdir mkdtemp rename Unpack",
    "archive restore: entry-policy.ts guards every entry (no absolute path, no .., no link, no hard link, no special file), extraction and chmod happen in a staging folder mkdtemp just made, archive-layout.ts refuses linked memory/ folders, and the entries are moved into a live tree the clear has just emptied (a clear refuses a link there)",
  ],
  "src/archive/clear-live-state.ts": [
    "mkdir×3 mkdtemp rename×2",
    "archive clear: after archive-layout.ts refused linked memory/ folders, moves the live files the archive verifiably holds (walked with lstat: a link in memory/reports/ refuses the clear) into a trash folder mkdtemp just made under .archive/, and back to where they were if the clear fails",
  ],
  "src/archive/file-tree.ts": [
    "open",
    "opens a file this module just wrote with 'r+' only to fsync it (never creates, never writes)",
  ],
  "src/store/authority.ts": [
    "openSync",
    "reads a client's record of the session (Claude Code's transcript, …): O_RDONLY | O_NOFOLLOW | O_NONBLOCK, never a write flag",
  ],
  "src/store/code-cache.ts": [
    "mkdirSync openSync×2 renameSync",
    "V8's code cache of the CLI, in the user's state folder beside the checkouts' keys (never inside a project): the folder made 0700 and checked by lstat to be a folder of this user's, a blob read O_RDONLY | O_NOFOLLOW, written into a temp created O_CREAT|O_EXCL|O_NOFOLLOW mode 0600 under an unpredictable name, then renamed into place (rename replaces a link, never writes through it)",
  ],
  "src/store/checkout-key.ts": [
    "linkSync mkdirSync openSync×2",
    "the checkout's key, in the user's state folder (never inside a project): the folder made 0700, the key read O_RDONLY | O_NOFOLLOW, written once into a temp created O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, then link()ed into place (link never follows its target and fails when the name exists, so two makers agree on one key)",
  ],
};

describe("every file write goes through src/store/write-file.ts", () => {
  it("the raw writes left in src/ are exactly the list, each with its reason", () => {
    const found: Record<string, string> = {};
    for (const file of sourceFiles()) {
      const writes = rawWrites(readFileSync(join(REPO, file), "utf8"));
      if (writes !== "") found[file] = writes;
    }
    const listed = Object.fromEntries(Object.entries(SITES).map(([file, [writes]]) => [file, writes]));
    const problems = [...new Set([...Object.keys(found), ...Object.keys(listed)])]
      .sort()
      .filter((file) => found[file] !== listed[file])
      .map((file) =>
        found[file] === undefined
          ? `${file}: listed with "${listed[file]}", but the code has none of these raw writes now: take it out of SITES`
          : `${file}: raw file writes "${found[file]}"${listed[file] === undefined ? "" : ` (listed: "${listed[file]}")`}: write through src/store/write-file.ts (writeFileInside, appendFileInside, mkdirInside, renameInside, linkInside, copyFileInside), or, if it must stay raw, list it in SITES in test/write-sites.test.ts with the reason it cannot follow a link out of the project`,
      );
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("every listed site has a reason", () => {
    for (const [file, [, reason]] of Object.entries(SITES)) expect(reason.length, file).toBeGreaterThan(20);
  });
});

describe("the scan finds a raw write however it is written (so the list cannot pass by not looking)", () => {
  const cases: Array<[string, string, string]> = [
    ["a named import, called", 'import { writeFileSync } from "node:fs";\nwriteFileSync(p, "x");', "writeFileSync"],
    [
      "an alias, called twice",
      'import { writeFileSync as w, readFileSync } from "fs";\nw(a, ""); w(b, readFileSync(c));',
      "writeFileSync×2",
    ],
    ["fs/promises", 'import { rename, readFile } from "node:fs/promises";\nawait rename(a, b);', "rename"],
    ["open, whatever its flags", 'import { openSync } from "node:fs";\nopenSync(f, "a");', "openSync"],
    ["a function passed, not called", 'import { mkdirSync } from "node:fs";\n[a, b].forEach(mkdirSync);', "mkdirSync"],
    ["a namespace import", 'import * as fs from "node:fs";\nfs.writeFileSync(p, "");', "node:fs as fs"],
    ["a default import", 'import fs from "fs";\nfs.appendFileSync(p, "");', "fs as fs"],
    ["require", 'const fs = require("node:fs");', 'require("fs")'],
    ["a dynamic import", 'const { writeFile } = await import("node:fs/promises");', 'import("fs/promises")'],
    ["getBuiltinModule", 'process.getBuiltinModule("node:fs").writeFileSync(p, "");', 'getBuiltinModule("fs")'],
    ["write-file-atomic", 'import writeFileAtomic from "write-file-atomic";', "write-file-atomic"],
    ["tar's writer", 'import { create as createTar } from "tar";\nawait createTar({ file }, ["a"]);', "create"],
    ["reads only", 'import { readFileSync, lstatSync } from "node:fs";\nreadFileSync(p); lstatSync(p);', ""],
    ["a type import", 'import type { WriteStream } from "node:fs";', ""],
    [
      "the name in a comment or another object's method",
      'import { rename } from "node:fs/promises";\n// rename(a, b)\nobj.rename(a);',
      "",
    ],
    ["the primitive", 'import { writeFileInside } from "./write-file.js";\nwriteFileInside(root, f, "x");', ""],
  ];
  it.each(cases)("%s", (_name, source, expected) => {
    expect(rawWrites(source)).toBe(expected);
  });
});
