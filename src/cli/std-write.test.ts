// std-write.ts in a child process (it watches the real process.stdout/stderr getters): direct
// writes while no stream exists, the stream once one does, in order, and nothing lost at exit.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { afterAll, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "dotagent-std-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function child(name: string, body: string): string {
  const outfile = join(work, `${name}.mjs`);
  const contents = `import { watchStdStreams, writeStd, usedStreams } from "./std-write.js";\nwatchStdStreams();\n${body}`;
  buildSync({
    stdin: { contents, resolveDir: HERE, loader: "ts", sourcefile: `${name}.ts` },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "silent",
  });
  return outfile;
}

const run = (file: string, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [file], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...env },
  });

it("writes directly while no stream exists: no stream is built, and process.exit right after loses nothing", () => {
  const file = child(
    "direct",
    `writeStd("stdout", "x".repeat(1 << 20) + "\\n"); writeStd("stderr", "note\\n"); process.exitCode = usedStreams().length; process.exit();`,
  );
  const result = run(file);
  expect(result.status).toBe(0); // no stream was made
  expect(result.stdout).toHaveLength((1 << 20) + 1);
  expect(result.stderr).toBe("note\n");
});

it("once something has used process.stdout, later writes go through it, in order, and it is drained before exit", () => {
  // (On Linux a pipe's stream writes synchronously, so the order would hold anyway; elsewhere it is async.)
  const file = child(
    "ordered",
    `for (let i = 0; i < 200; i++) { if (i === 100) process.stdout.write("stream;"); writeStd("stdout", i + ";"); } process.exitCode = usedStreams().length;`,
  );
  const result = run(file);
  expect(result.status).toBe(1); // stdout is now a stream to drain; stderr is not
  const expected = [
    ...Array.from({ length: 100 }, (_, i) => `${i};`),
    "stream;",
    ...Array.from({ length: 100 }, (_, i) => `${i + 100};`),
  ].join("");
  expect(result.stdout).toBe(expected);
});

it("a reader that went away ends the writing quietly (no EPIPE crash)", () => {
  const file = child(
    "epipe",
    `for (let i = 0; i < 1000; i++) writeStd("stdout", "y".repeat(65536)); writeStd("stderr", "done\\n");`,
  );
  const result = spawnSync("sh", ["-c", `"${process.execPath}" "${file}" | head -c 10 > /dev/null`], {
    encoding: "utf8",
  });
  expect(result.status).toBe(0);
  expect(result.stderr).not.toMatch(/EPIPE|Error/);
});
