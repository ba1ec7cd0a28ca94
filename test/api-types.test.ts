// Type test of the checkpoint API (checkpointStore, coordinator, recoverableQuery):
// test/api-types/checkpoints-consumer.ts is a program written against the public entry and the real
// SDK's types, whose @ts-expect-error lines each fail if a type decays to `any`. It is compiled by
// the project's own type check (`npm run typecheck`, which CI and `npm run check` run before the
// tests): a second tsc program of its own cost 13 s of CPU in every `npm test` for the same
// answer. This file keeps that true: the consumer stays in the type check's program, and it still
// holds the misuses it must refuse. The packed types without the SDK installed are checked by
// test/package.test.ts's consumer (test/api-types/consumer.ts, outside the main program: it is
// compiled there as an installed package's user would, with no Node.js types).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "./claude/harness.js";

it("the checkpoint API's consumer is compiled by `npm run typecheck`, and its misuses are there to be refused", () => {
  const config = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as {
    include: string[];
    exclude?: string[];
  };
  expect(config.include).toContain("test");
  const excluded = config.exclude ?? [];
  expect(excluded.filter((path) => "test/api-types/checkpoints-consumer.ts".startsWith(path))).toEqual([]);
  expect(excluded).toContain("test/api-types/consumer.ts");
  const consumer = readFileSync(join(ROOT, "test", "api-types", "checkpoints-consumer.ts"), "utf8");
  expect(consumer.match(/@ts-expect-error/g)?.length ?? 0).toBeGreaterThanOrEqual(5);
  expect(consumer).toContain('from "../../src/index.js"');
});
