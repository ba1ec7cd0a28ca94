// A command that comes right after the person's prompt, before the client has written that
// prompt down (Claude Code records it just after its hook; Copilot a moment later still, and
// later under load): it waits a moment for the record and carries the reply out, instead of
// refusing the step the model was told the reply allows (the model would then ask the person
// again). SPEC §11 "The person's answer". The waits are injected: no test here sleeps.
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { locked, type OpContext } from "../src/ops/op-context.js";
import { recordPrompt } from "../src/ops/person-replies.js";
import { textDigest } from "../src/store/authority.js";
import { projectPaths } from "../src/store/project.js";
import { dotagent, readJson, removeTemps, tempProject } from "./support/cli.js";
import { typedPrompt } from "./support/typed-prompt.js";

afterEach(removeTemps);

const DEMAND = { feature: "add login", user_stories: ["sign in"], acceptance: ["wrong password shows an error"] };

function atRequirementsGate(): string {
  const p = tempProject();
  expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
  mkdirSync(join(p, "memory/reports"), { recursive: true });
  writeFileSync(join(p, "memory/reports/demand.json"), JSON.stringify(DEMAND));
  // Shown to the person a while before they answer: a reply within FILE_CLOCK_SLACK_MS of the
  // report's time counts as older than it (src/core/person-answer.ts), and this test's reply is
  // recorded in-process, within a millisecond or two on a fast machine.
  const shown = new Date(Date.now() - 60_000);
  utimesSync(join(p, "memory/reports/demand.json"), shown, shown);
  return p;
}

const contextOf = (p: string, extra: Partial<OpContext> = {}): OpContext => ({
  paths: projectPaths(p),
  now: () => new Date(),
  warn: () => {},
  note: () => {},
  ...extra,
});

/** The person's `approve` at the REQUIREMENTS gate, recorded by the hook before the client's record of it exists. */
async function approvedBeforeRecorded(p: string) {
  const typed = typedPrompt("approve", { when: "later" });
  const evidence = {
    client: "claude" as const,
    record: String(typed.input.transcript_path),
    id: String(typed.input.prompt_id),
    sha: textDigest("approve"),
  };
  expect((await recordPrompt(contextOf(p), { text: "approve", evidence })).kind).toBe("pending");
  return typed;
}

const phaseOf = (p: string) => (readJson(p, "memory/state/phase.json") as { current_phase: string }).current_phase;

describe("the next command after the person's reply waits for the client's record of it", () => {
  it("the record arrives during the wait: the reply is carried out before the command reads the state", async () => {
    const p = atRequirementsGate();
    const typed = await approvedBeforeRecorded(p);
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      if (waits.length === 3) typed.record();
    };
    const seen = await locked(contextOf(p, { sleep }), "test", () => phaseOf(p));
    expect(seen).toBe("ARCHITECTURE");
    expect(waits).toEqual([25, 50, 100]);
    expect(existsSync(join(p, "memory/state/.pending-reply.json"))).toBe(false);
  });

  it("never recorded: the command goes on after 3 s of waits in all, the reply still waiting for the next", async () => {
    const p = atRequirementsGate();
    await approvedBeforeRecorded(p);
    const waits: number[] = [];
    const seen = await locked(contextOf(p, { sleep: async (ms) => void waits.push(ms) }), "test", () => phaseOf(p));
    expect(seen).toBe("REQUIREMENTS");
    expect(waits.reduce((a, b) => a + b, 0)).toBe(3000);
    expect(existsSync(join(p, "memory/state/.pending-reply.json"))).toBe(true);
  });

  it("a reply from more than 30 s ago is not waited for", async () => {
    const p = atRequirementsGate();
    await approvedBeforeRecorded(p);
    const waits: number[] = [];
    const later = () => new Date(Date.now() + 31_000);
    const seen = await locked(contextOf(p, { now: later, sleep: async (ms) => void waits.push(ms) }), "test", () =>
      phaseOf(p),
    );
    expect(seen).toBe("REQUIREMENTS");
    expect(waits).toEqual([]);
  });
});
