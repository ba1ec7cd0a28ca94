// Type test of the checkpoint API (checkpointStore, coordinator, recoverableQuery): tsc compiles
// test/api-types/checkpoints-consumer.ts, a program written against the public entry and the real SDK's
// types, whose @ts-expect-error lines each fail if a type decays to `any`. The packed types
// without the SDK installed are checked by test/package.test.ts's consumer.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "./claude/harness.js";

it("a TypeScript consumer of the checkpoint API compiles, and its misuses are refused", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "test", "api-types", "tsconfig.json")], {
    encoding: "utf8",
  });
  expect(run.stdout + run.stderr).toBe("");
  expect(run.status).toBe(0);
});
