// docs/api.md's LangGraph example, exactly as shown there (the code between its markers), in a
// project where `dotagent-workflow` and LangGraph's packages are installed: run, killed with
// SIGKILL while its second step runs, run again. The second run resumes from the last
// checkpoint: it does not run the first step again and ends with all three.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "./support/cli.js";

const temps: string[] = [];
afterAll(() => temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The example's code, as docs/api.md shows it. */
function example(): string {
  const docs = readFileSync(join(REPO, "docs", "api.md"), "utf8");
  const code = /<!-- langgraph-example -->\n```js\n([\s\S]*?)```\n<!-- \/langgraph-example -->/.exec(docs)?.[1];
  if (code === undefined) throw new Error("docs/api.md has no <!-- langgraph-example --> block");
  return code;
}

/** Runs the program; with `killAfter`, SIGKILLs it that many ms after it prints `killAfter.on`. */
function run(
  project: string,
  killAfter?: { on: string; ms: number },
): Promise<{ stdout: string; stderr: string; signal: string | null; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["example.mjs"], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let armed = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (killAfter !== undefined && !armed && stdout.includes(killAfter.on)) {
        armed = true;
        setTimeout(() => child.kill("SIGKILL"), killAfter.ms);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ stdout, stderr, signal, code }));
  });
}

describe("docs/api.md's LangGraph example", () => {
  it("is a dozen lines or so, uses the saver as a user imports it, and survives kill -9 mid-run", async () => {
    const code = example();
    expect(
      code.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("import ")).length,
    ).toBeLessThanOrEqual(14);
    expect(code).toContain('from "dotagent-workflow/langgraph"');

    // As `npm install dotagent-workflow @langchain/langgraph` would lay it out (the package by its exports).
    const project = mkdtempSync(join(tmpdir(), "dotagent-lg-example-"));
    temps.push(project);
    mkdirSync(join(project, "node_modules"));
    symlinkSync(REPO, join(project, "node_modules", "dotagent-workflow"), "dir");
    symlinkSync(join(REPO, "node_modules", "@langchain"), join(project, "node_modules", "@langchain"), "dir");
    writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(project, "example.mjs"), code);

    // Killed half way through `build` (a second of work): `plan`'s checkpoint is on disk.
    const killed = await run(project, { on: "build…", ms: 500 });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    expect(killed.stdout).toBe("plan…\nbuild…\n");
    expect(existsSync(join(project, ".checkpoints", "langgraph", "release-1", "thread.json"))).toBe(true);

    const resumed = await run(project);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("build…\nship…\n[ 'plan', 'build', 'ship' ]\n");
  });
});
