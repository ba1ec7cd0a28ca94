// The Codex variant of a dotagent skill, generated at install time from the one source
// (skills/*/SKILL.md), never kept as a second copy. Codex (test/codex/NOTES.md) reads only `name`
// and `description` of the frontmatter, pastes the body as it is when the person types `$name`,
// runs no ```! block and substitutes neither `$ARGUMENTS` nor `${CLAUDE_SKILL_DIR}`. So:
//   - the frontmatter keeps name and description (with `$name` for `/name`);
//   - `${CLAUDE_SKILL_DIR}` becomes the skill's installed folder, so the helper is named by its path;
//   - a ```! block becomes a command the model runs first, itself, with the person's words;
//   - Claude Code's Agent tool is Codex's spawn_agent + wait_agent + close_agent (a closing section says how).
import { posix } from "node:path";

export interface CodexSkillPaths {
  /** The skill's installed folder, absolute (…/.agents/skills/develop). */
  readonly skillDir: string;
}

const SKILL_NAMES = ["develop", "status", "checkpoint"];

/** `/develop`, `/status` (a Claude Code slash command) as Codex's `$develop`, `$status`. */
function dollarCommands(text: string): string {
  return text.replace(new RegExp(`(^|[\\s(\`"'])/(?:dotagent:)?(${SKILL_NAMES.join("|")})\\b`, "g"), "$1$$$2");
}

/** Splits the frontmatter (`---` lines) from the body; none: all body. */
function splitFrontmatter(source: string): { head: string[]; body: string } {
  const text = source.replaceAll("\r\n", "\n");
  if (!text.startsWith("---\n")) return { head: [], body: text };
  const end = text.indexOf("\n---\n", 3);
  if (end === -1) return { head: [], body: text };
  return { head: text.slice(4, end).split("\n"), body: text.slice(end + 5) };
}

/** The helper path `${CLAUDE_SKILL_DIR}/../checkpoint/scripts/dotagent.cjs` resolved against the installed folder. */
function withSkillDir(text: string, skillDir: string): string {
  return text.replace(/\$\{CLAUDE_SKILL_DIR\}((?:\/[^\s"`')]*)?)/g, (_all, rest: string) =>
    posix.normalize(`${skillDir}${rest}`),
  );
}

const RUN_FIRST =
  "Codex does not run this for you: run it yourself first, as one shell command, with the words the person typed after `$develop` in place of THE_REQUEST (nothing after it: leave out the whole `--request=…` argument). If its answer is empty or refused, run `dotagent resume --json --start --request=<the request>` first.";

/** A ```! block as a command the model runs itself, with `$ARGUMENTS` as THE_REQUEST. */
function runFirstBlocks(body: string): string {
  return body.replace(
    /```!\s*\n([\s\S]*?)\n```/g,
    (_all, command: string) => `${RUN_FIRST}\n\n\`\`\`sh\n${command.replaceAll("$ARGUMENTS", "THE_REQUEST")}\n\`\`\``,
  );
}

const SPAWNING = `
## In Codex

- Spawn an agent with the \`spawn_agent\` tool: \`agent_type\` the agent's name, \`message\` the prompt
  lines above, and where the tool asks for them \`task_name\` (its description, with underscores)
  and \`fork_turns: "none"\`; nothing else (no \`fork_context\`, \`model\` or \`items\`). Agents of one
  step: one \`spawn_agent\` call each, in one response.
- \`spawn_agent\` returns at once with the agent's id. Then call \`wait_agent\` (with the ids of every
  agent of the step, where it takes them), again until each one completed; dotagent's
  \`dotagent next:\` line arrives with the wait's result. No such line once they completed: run
  \`dotagent resume --json\`. Never end your turn while an agent of yours is at work (\`codex exec\`
  would stop it).
- Once an agent completed and you have its result, close it: \`close_agent\` with its id (where
  the tool is offered). A session counts every agent it spawned, completed ones too, until closed,
  and refuses more past its limit ("agent thread limit reached", 6 by default).
- The person's reply comes as their next message (typed in Codex, or \`codex exec resume\`), never
  from you.
`;

/** The Codex SKILL.md for one source SKILL.md. Pure. */
export function codexSkillText(source: string, paths: CodexSkillPaths): string {
  const { head, body } = splitFrontmatter(source);
  const kept = head.filter((line) => /^(name|description):/.test(line)).map(dollarCommands);
  let text = runFirstBlocks(withSkillDir(body, paths.skillDir));
  text = dollarCommands(text)
    .replaceAll("$ARGUMENTS", "(the words the person typed after `$develop`)")
    .replace(
      /Use the Agent tool with `subagent_type` the agent's name \(a plugin lists it as `dotagent:pm`:\s*use the name the tool lists\)/,
      'Use the spawn_agent tool with `agent_type` the agent\'s name (see "In Codex" below)',
    );
  const spawns = /\bAgent tool\b|spawn/.test(body) && /^name: develop$/m.test(head.join("\n"));
  return `${kept.length > 0 ? `---\n${kept.join("\n")}\n---\n` : ""}${text.replace(/\n*$/, "\n")}${spawns ? SPAWNING : ""}`;
}

/** A skill's reference file (Markdown it Reads later): the same paths and command names. Pure. */
export function codexReferenceText(source: string, paths: CodexSkillPaths): string {
  return dollarCommands(withSkillDir(source.replaceAll("\r\n", "\n"), paths.skillDir));
}
