// The LangGraph saver (dist/langgraph.mjs, as users import it) under kill -9 and 8 processes on
// one thread (issue 33): langgraph-torture.mjs does the work; this is its bounded run in npm test.
// TORTURE_LANGGRAPH_KILLS / _ROUNDS raise the counts (`npm run torture:langgraph` runs the long
// one and writes its figures into docs/evidence.md); TORTURE_SEED replays a run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { REPO } from "../support/cli.js";
import { envInt, recordFigures, seedFor } from "./helpers.js";
import { crowdTorture, killTorture } from "./langgraph-torture.mjs";

const SAVER = join(REPO, "dist", "langgraph.mjs");
const temps: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "dotagent-lg-torture-"));
  temps.push(d);
  return d;
};
afterAll(() => temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("DotagentSaver under kill -9 and 8 processes on one thread", () => {
  it("a writer killed right before random disk changes of put/putWrites/the lock loses no acknowledged call", async () => {
    const seed = seedFor("langgraph-kills");
    onTestFailed(() => console.error(`replay with TORTURE_SEED=${seed}`));
    const result = await killTorture({
      saverPath: SAVER,
      dir: temp(),
      kills: envInt("TORTURE_LANGGRAPH_KILLS", 6),
      steps: 8,
      bytes: 4000,
      seed,
    });
    recordFigures("langgraph-kills", result.figures);
    expect(result.violations).toEqual([]);
    expect(result.figures.kills).toBeGreaterThan(0);
    expect(result.figures.acknowledged_puts).toBeGreaterThan(0);
  });

  it("8 writers on one thread, some killed, lose no acknowledged put and no write to their shared checkpoint", async () => {
    const seed = seedFor("langgraph-crowd");
    onTestFailed(() => console.error(`replay with TORTURE_SEED=${seed}`));
    const result = await crowdTorture({
      saverPath: SAVER,
      dir: temp(),
      processes: 8,
      rounds: envInt("TORTURE_LANGGRAPH_ROUNDS", 1),
      steps: 5,
      kills: 2,
      bytes: 2000,
      seed,
    });
    recordFigures("langgraph-crowd", result.figures);
    expect(result.violations).toEqual([]);
    expect(result.figures.acknowledged_writes).toBeGreaterThan(8 * 5);
  });
});
