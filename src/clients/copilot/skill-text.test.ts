import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeOnlyMarkers, copilotSkillText } from "./skill-text.js";

const ROOT = join(import.meta.dirname, "../../..");
const skills = readdirSync(join(ROOT, "skills")).filter((d) => !d.startsWith("."));

describe("copilotSkillText", () => {
  it.each(skills)("%s: no Claude-only marker is left, the skill folder is written in", (name) => {
    const source = readFileSync(join(ROOT, "skills", name, "SKILL.md"), "utf8");
    const text = copilotSkillText(source, { skillDir: "/p/.github/skills/" + name });
    expect(claudeOnlyMarkers(text)).toEqual([]);
    if (source.includes("${CLAUDE_SKILL_DIR}")) expect(text).toContain(`/p/.github/skills/${name}`);
    expect(text).not.toMatch(/Agent tool|subagent_type|run_in_background/);
  });

  it("develop: the plan comes from the hook's `dotagent next:` line, with the helper call as the fallback", () => {
    const text = copilotSkillText(readFileSync(join(ROOT, "skills/develop/SKILL.md"), "utf8"), {
      skillDir: "/p/.github/skills/develop",
    });
    expect(text).toContain("dotagent next: {…}");
    expect(text).toContain("run `dotagent resume --json --start` with the request");
    expect(text).toContain(
      '    node "/p/.github/skills/develop/../checkpoint/scripts/dotagent.cjs" <command> … --json',
    );
    expect(text).toContain("Use the `task` tool with `agent_type` the agent's name");
    expect(text).not.toMatch(/^disable-model-invocation/m);
    expect(text).toContain("results carry different `dotagent next:` lines: run `dotagent resume --json`");
  });

  it("a shell line run at expansion becomes a line the model runs", () => {
    expect(copilotSkillText('x\n```!\nnode "${CLAUDE_SKILL_DIR}/a.mjs" status\n```\n', { skillDir: "/s" })).toBe(
      'x\nRun this first with your shell tool (Copilot runs no shell line of a skill by itself):\n\n```bash\nnode "/s/a.mjs" status\n```\n',
    );
  });

  it("is a no-op on a text without Claude markers", () => {
    expect(copilotSkillText("# plain\n\nnothing here\n", { skillDir: "/s" })).toBe("# plain\n\nnothing here\n");
  });
});
