import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "./git.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("git's input (a temp file, never a pipe)", () => {
  it("reaches git whole, from a file already removed: a dotagent killed while git runs leaves nothing in the temp folder", () => {
    const repo = mkdtempSync(join(tmpdir(), "git-input-"));
    dirs.push(repo);
    git(repo, ["init", "-q"]);
    const input = "line one\nline two\n".repeat(1000);
    // An alias run by git's shell, which inherits git's stdin: what it is, then what it holds.
    const probe = "!f() { readlink /proc/self/fd/0; wc -c; }; f";
    const out = git(repo, ["-c", `alias.probe=${probe}`, "probe"], { input }).stdout.split("\n");
    expect(out[0]).toMatch(/\/dotagent-git-[^/]+\/stdin \(deleted\)$/);
    expect(Number(out[1])).toBe(Buffer.byteLength(input));
  });
});
