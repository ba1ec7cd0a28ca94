// The skills as GitHub Copilot CLI reads them, generated at install time from the one source
// (skills/*/SKILL.md, written for Claude Code). Pure. What differs in Copilot 1.0.102
// (test/copilot/NOTES.md):
// - a slash command in print mode (`copilot -p "/develop add login"`) reaches the model as plain
//   text and the model loads the skill with its `skill` tool; a skill with
//   `disable-model-invocation: true` is not offered to that tool, so the flag goes;
// - `${CLAUDE_SKILL_DIR}` and `$ARGUMENTS` are not filled in: the skill's folder is written in (the
//   installed copy's absolute path) and the request is "what the person typed after /develop";
// - a ```! block (a shell line Claude Code runs when the skill expands) is not run: /develop's
//   plan comes from the userPromptSubmitted hook (a `dotagent next:` line), with the helper call
//   as the fallback; any other ```! block becomes a line the model runs;
// - sub-agents are spawned with the `task` tool (`agent_type`, `mode: "sync"`), not Claude's Agent tool.

/** Where the installed skill lives: the folder `${CLAUDE_SKILL_DIR}` names in Claude Code. */
export interface SkillPlace {
  readonly skillDir: string;
}

const DEVELOP_PLAN =
  /The plan \(`dotagent resume --json --start` ran before you read this;[\s\S]*?\n```!\n[\s\S]*?\n```\n/;

const COPILOT_PLAN = `The plan: when the person typed /develop, dotagent's hook ran \`dotagent resume --json --start\`
for their request and put its answer into this conversation as a \`dotagent next: {…}\` line
(a system reminder on their prompt). That answer is "above" for everything below. If there is no
such line, or it is an error, run \`dotagent resume --json --start\` with the request (the
here-document below) first and act on its answer.
`;

const REPLACEMENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^disable-model-invocation: true\n/m, ""],
  [/\n {4}\$ARGUMENTS\n/, "\n    (what the person typed after /develop, as they wrote it)\n"],
  [
    /Use the Agent tool with `subagent_type` the agent's name \(a plugin lists it as `dotagent:pm`:\nuse the name the tool lists\), `run_in_background: false`/,
    "Use the `task` tool with `agent_type` the agent's name, `name` the agent's name, `mode: \"sync\"`",
  ],
  [/several Agent calls/g, "several task calls"],
  // Copilot runs the calls of one message side by side and shows their results in call order, not
  // in the order they ended: the newest `dotagent next:` line is not always the last one shown.
  [
    /^(- The call returned the agent's report, with a `dotagent next:` line: act on that `next`\.)$/m,
    "$1 Several calls in one\n  message whose results carry different `dotagent next:` lines: run `dotagent resume --json` and act on its `next`.",
  ],
  [/Agent calls?\b/g, "task call"],
];

/** The Copilot variant of one SKILL.md. */
export function copilotSkillText(source: string, place: SkillPlace): string {
  let text = source.replace(DEVELOP_PLAN, COPILOT_PLAN);
  for (const [pattern, replacement] of REPLACEMENTS) text = text.replace(pattern, replacement);
  // Any other shell line run at expansion: the model runs it.
  text = text.replace(
    /```!\n/g,
    "Run this first with your shell tool (Copilot runs no shell line of a skill by itself):\n\n```bash\n",
  );
  return text.replaceAll("${CLAUDE_SKILL_DIR}", place.skillDir);
}

/** Claude Code's markers a Copilot skill must not keep (the unit test and the doctor look for them). */
export function claudeOnlyMarkers(text: string): string[] {
  const found: string[] = [];
  if (text.includes("${CLAUDE_SKILL_DIR}")) found.push("${CLAUDE_SKILL_DIR}");
  if (text.includes("$ARGUMENTS")) found.push("$ARGUMENTS");
  if (/^```!/m.test(text)) found.push("```! block");
  if (/^disable-model-invocation: true$/m.test(text)) found.push("disable-model-invocation");
  return found;
}
