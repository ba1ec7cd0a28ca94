import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { codexReferenceText, codexSkillText } from "./skill-text.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");
const DIR = "/home/p/app/.agents/skills/develop";
const HELPER = "/home/p/app/.agents/skills/checkpoint/scripts/dotagent.cjs";

describe("the Codex variant of a skill, generated from the one source", () => {
  const develop = codexSkillText(read("skills/develop/SKILL.md"), { skillDir: DIR });

  it("keeps only name and description of the frontmatter, with $develop for /develop", () => {
    const head = /^---\n([\s\S]*?)\n---\n/.exec(develop)?.[1] ?? "";
    expect(head.split("\n").map((l) => l.split(":")[0])).toEqual(["name", "description"]);
    expect(head).toContain("Invoke as $develop followed by the feature request");
    expect(head).not.toMatch(/(^|\s)\/develop\b/);
  });

  it("leaves nothing Codex would not run or substitute: no ```! block, no $ARGUMENTS, no ${CLAUDE_SKILL_DIR}", () => {
    for (const skill of ["develop", "checkpoint", "status"]) {
      const text = codexSkillText(read(`skills/${skill}/SKILL.md`), { skillDir: `/p/.agents/skills/${skill}` });
      expect(text).not.toMatch(/```!/);
      expect(text).not.toContain("$ARGUMENTS");
      expect(text).not.toContain("CLAUDE_SKILL_DIR");
    }
  });

  it("names the helper by its installed path, the resume line the model runs first included", () => {
    expect(develop).toContain(`node "${HELPER}" <command> … --json`);
    expect(develop).toContain(
      `node "${HELPER}" resume --json --start --request="$(cat <<'DOTAGENT_REQUEST'\nTHE_REQUEST\nDOTAGENT_REQUEST`,
    );
    expect(develop).toMatch(/run it yourself first/);
    expect(develop).toContain(
      "If its answer is empty or refused, run `dotagent resume --json --start --request=<the request>` first.",
    );
  });

  it("says how Codex spawns and waits (spawn_agent with agent_type and message, then wait_agent)", () => {
    expect(develop).toContain("Use the spawn_agent tool with `agent_type` the agent's name");
    expect(develop).toMatch(/## In Codex[\s\S]*wait_agent/);
    // An interactive session keeps completed agents open and refuses a 7th: the model closes each one.
    expect(develop).toMatch(/## In Codex[\s\S]*close it: `close_agent` with its id[\s\S]*agent thread limit reached/);
    expect(codexSkillText(read("skills/status/SKILL.md"), { skillDir: "/p/.agents/skills/status" })).not.toContain(
      "## In Codex",
    );
  });

  it("is pure: the same source and folder give the same bytes", () => {
    expect(codexSkillText(read("skills/develop/SKILL.md"), { skillDir: DIR })).toBe(develop);
  });

  it("rewrites a reference's paths and command names the same way", () => {
    const text = codexReferenceText("Read `${CLAUDE_SKILL_DIR}/references/tasks.md`; then /develop again.", {
      skillDir: DIR,
    });
    expect(text).toBe(`Read \`${DIR}/references/tasks.md\`; then $develop again.`);
  });
});
