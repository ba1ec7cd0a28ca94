// PATH's `node` as the hooks would run it: this process's own binary answers without a process;
// anything else is asked (`node --version`), so the doctor's answer is what it was.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { nodeOnPathVersion, sameNodeAsThis } from "./node-on-path.js";

const work = mkdtempSync(join(tmpdir(), "dotagent-node-on-path-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder under the test's own temp folder holding `files` (name → a link to this node, or a script's text, or a plain file). */
function folder(name: string, files: Record<string, "this node" | "not executable" | string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, what] of Object.entries(files)) {
    const path = join(dir, file);
    if (what === "this node") symlinkSync(process.execPath, path);
    else if (what === "not executable") writeFileSync(path, "#!/bin/sh\necho v0.0.0\n", { mode: 0o644 });
    else {
      writeFileSync(path, what);
      chmodSync(path, 0o755);
    }
  }
  return dir;
}

const link = folder("link", { node: "this node" });
const shim = folder("shim", { node: "#!/bin/sh\necho v99.1.2\n" });
const broken = folder("broken", { node: "#!/bin/sh\nexit 3\n" });
const plain = folder("plain", { node: "not executable" });
const empty = folder("empty", {});
const missing = join(work, "no-such-folder");
/** PATH, and this process's NODE_OPTIONS (whatever runs the tests set), unless `more` says otherwise. */
const env = (PATH: string | undefined, more: Record<string, string> = {}) => ({
  PATH,
  ...(process.env.NODE_OPTIONS !== undefined ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
  ...more,
});

describe("node on PATH", () => {
  test.each([
    ["a link to this very binary", env(link), true, process.version],
    ["the same, after folders without a node", env(`${missing}:${empty}:${link}`), true, process.version],
    ["a shim that is another file: asked", env(`${shim}:${link}`), false, "v99.1.2"],
    ["a node that fails: asked, none", env(broken), false, null],
    ["no node at all: asked, none", env(`${empty}:${missing}`), false, null],
    ["a file not executable: asked (exec goes on past it)", env(`${plain}:${link}`), false, process.version],
    ["an empty PATH entry (the working folder): asked", env(`:${link}`), false, process.version],
    ["a relative PATH entry: asked", env(`bin:${link}`), false, process.version],
    [
      "another NODE_OPTIONS: asked",
      env(link, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --no-warnings` }),
      false,
      process.version,
    ],
  ])("%s", (_, e, same, version) => {
    expect(sameNodeAsThis(e)).toBe(same);
    expect(nodeOnPathVersion(e)).toBe(version);
  });

  test("no PATH: asked", () => {
    expect(sameNodeAsThis({})).toBe(false);
  });
});
