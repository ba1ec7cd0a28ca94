// The checkpoint skill ships the CLI beside it (a plugin installed from git gets only committed
// files), so the committed copy must be the current build: in CI `npm test` builds first, and a stale
// committed helper then shows up as a change in git.
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { REPO, CLI } from "./support/cli.js";

const HELPER = "skills/checkpoint/scripts/dotagent.mjs";
const inGit = (() => {
  try {
    execFileSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: REPO, stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();

describe("the bundled helper script", () => {
  it("is the one-file CLI, executable", () => {
    expect(readFileSync(join(REPO, HELPER))).toEqual(readFileSync(CLI));
    expect(statSync(join(REPO, HELPER)).mode & 0o111).not.toBe(0);
  });
  it.skipIf(!inGit || !process.env.CI)("is committed as built (rebuild and commit it when src/ changes)", () => {
    const diff = execFileSync("git", ["status", "--porcelain", "--", HELPER], { cwd: REPO, encoding: "utf8" });
    expect(diff, `${HELPER} differs from the committed one: run npm run build and commit it`).toBe("");
  });
});
