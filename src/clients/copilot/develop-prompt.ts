// The person's `/develop …` prompt in Copilot CLI. Copilot sends a skill's slash command in print
// mode to the model as plain text and runs no `!` shell line of a skill, so the plan the Claude
// skill gets from its `!` line (`dotagent resume --json --start`) comes from the
// userPromptSubmitted hook instead (hook-run.ts). Pure.
//
// The two shapes the hook gets (test/copilot/NOTES.md):
//   print mode (`copilot -p "/develop add login"`)   the text as typed
//   the interactive terminal (typed at its prompt)   the skill expanded by the client:
//     The user explicitly invoked the "/develop" skill. Follow its instructions now.\n\n
//     <skill-context name="develop">\n…the skill…\n\nARGUMENTS: add login\n</skill-context>

const EXPANDED =
  /^The user explicitly invoked the "\/(?:dotagent:)?develop" skill\.[^\n]*\n\s*<skill-context name="(?:dotagent:)?develop">\n[\s\S]*<\/skill-context>$/;

/** The request of a `/develop [text]` prompt ("" for `/develop` alone), or undefined for any other prompt. */
export function developRequest(prompt: string): string | undefined {
  const text = prompt.trim();
  if (EXPANDED.test(text)) {
    // The arguments are the last line(s) of the expansion, after the skill's own text.
    const at = text.lastIndexOf("\nARGUMENTS:");
    return at === -1 ? "" : text.slice(at + "\nARGUMENTS:".length, -"</skill-context>".length).trim();
  }
  const m = /^\/(?:dotagent:)?develop(?:\s+([\s\S]*))?$/.exec(text);
  return m === null ? undefined : (m[1] ?? "").trim();
}

/** What the model reads: the helper's answer on one `dotagent next:` line (the shape every hook's next step has). */
export function startContext(stdout: string, helper: string): string {
  let answer: string;
  try {
    answer = JSON.stringify(JSON.parse(stdout));
  } catch {
    answer = stdout.trim() === "" ? "(no answer)" : stdout.trim().slice(0, 4000);
  }
  return [
    "dotagent ran `resume --json --start` for this /develop (the plan of the /develop skill). Its answer; act on its next:",
    `dotagent next: ${answer}`,
    `The helper: node "${helper}" <command> … --json`,
  ].join("\n");
}
