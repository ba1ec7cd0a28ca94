import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENTS } from "../cli/client-option.js";
import { CLIENT_IDS, type ClientColdParts, type ClientHooks } from "./adapter.js";
import { CLIENT_PARTS } from "./cold-parts.js";
import { CLIENT_HOOKS } from "./hook-parts.js";
import { ADAPTERS, DEFAULT_CLIENT, adapterOf } from "./index.js";

// Every client behind the one adapter (issue 41): a row per client, every part there.
describe("the clients' registry", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("holds one adapter per --client id, in CLIENTS's order, Claude Code (the default) first", () => {
    expect(ADAPTERS.map((a) => a.id)).toEqual([...CLIENTS]);
    expect(ADAPTERS.map((a) => a.id)).toEqual([...CLIENT_IDS]);
    expect(DEFAULT_CLIENT).toBe(ADAPTERS[0]);
    for (const adapter of ADAPTERS) expect(adapterOf(adapter.id)).toBe(adapter);
  });

  it("names, commands, folders and manifests are unique", () => {
    for (const field of ["id", "name", "fullName", "command", "folder", "manifest"] as const)
      expect(new Set(ADAPTERS.map((a) => a[field])).size, field).toBe(ADAPTERS.length);
  });

  it.each(ADAPTERS.map((a) => [a.id, a] as const))("%s has every part of the descriptor", (_id, adapter) => {
    expect(adapter.name).not.toBe("");
    expect(adapter.command).toMatch(/^[a-z]+$/);
    expect(adapter.manifest.startsWith(".")).toBe(true);
    expect(adapter.scopes[0]).toBe("project");
    // A one-scope client says why another scope is refused; a client with several needs no words.
    expect(adapter.scopeRefusal === null).toBe(adapter.scopes.length > 1);
    expect(["/develop", "$develop"]).toContain(adapter.startWord);
    expect(adapter.trust).toMatch(/trust/);
  });

  it.each(CLIENT_IDS.map((id) => [id] as const))("%s has its cold parts and its hooks", async (id) => {
    const parts: ClientColdParts = CLIENT_PARTS[id];
    for (const part of ["install", "uninstall", "doctor", "skillText"] as const)
      expect(typeof parts[part], part).toBe("function");
    expect(typeof parts.runsHeadless).toBe("boolean");
    const hooks: ClientHooks = await CLIENT_HOOKS[id]();
    expect(typeof hooks.run).toBe("function");
    expect(hooks.events).toContain("session-start");
    expect(hooks.events).toContain("pre-tool-use");
  });

  it.each([
    ["claude", "dotagent: hook takes one event: "],
    ["copilot", "dotagent: hook --client copilot takes one event: "],
    ["codex", "dotagent: hook takes one event: "],
  ] as const)("%s's hooks name their events for an unknown one, on stderr, exit 0", async (id, opening) => {
    const hooks = await CLIENT_HOOKS[id]();
    const host = {} as Parameters<ClientHooks["run"]>[1]; // an unknown event asks nothing of it
    vi.stubEnv("COPILOT_CLI", undefined); // not Copilot running Claude Code's hooks
    for (const event of [undefined, "no-such-event"])
      expect(await hooks.run(event, host)).toEqual({
        stdout: null,
        stderr: `${opening}${hooks.events.join(", ")}\n`,
        exitCode: 0,
      });
  });

  it("only the registry's own id lists exist: cold parts and hooks are keyed by exactly its ids", () => {
    expect(Object.keys(CLIENT_PARTS).sort()).toEqual([...CLIENT_IDS].sort());
    expect(Object.keys(CLIENT_HOOKS).sort()).toEqual([...CLIENT_IDS].sort());
  });

  it("only Claude Code's skill text is its source as it is", () => {
    const source = "---\nname: develop\ndisable-model-invocation: true\n---\nRun /develop in ${CLAUDE_SKILL_DIR}.\n";
    const texts = CLIENT_IDS.map((id) => CLIENT_PARTS[id].skillText(source, { skillDir: "/p/skills/develop" }));
    expect(texts.map((t) => t === source)).toEqual(CLIENT_IDS.map((id) => id === DEFAULT_CLIENT.id));
  });
});
