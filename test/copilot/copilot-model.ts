// The scripted model (test/claude/scripted-model/policy.ts) playing GitHub Copilot CLI: Copilot's
// request is read as Claude Code's (tool names, argument names, where hook context and skills
// sit), the policy decides, and its tool calls go back under Copilot's names. One policy, two
// clients: the moves are the same, only the words differ (test/copilot/NOTES.md has them).
//
//   Copilot                                   Claude Code (what the policy reads and writes)
//   bash {command}                            Bash {command}
//   task {agent_type, prompt, mode: "sync"}   Agent {subagent_type, prompt, run_in_background: false}
//   create {path, file_text}                  Write {file_path, content}
//   edit {path, old_str, new_str}             Edit {file_path, old_string, new_string}
//   view {path}                               Read {file_path}
//   <current_datetime>…</current_datetime>    the person's text ("/develop x" as the command tags)
//   <system_reminder>…</system_reminder>      a hook's context (a system reminder)
//   <skill-context name="develop">…           the expanded skill ("Base directory for this skill: …")
//   "Current working directory: X"            "Primary working directory: X"
import { existsSync, readFileSync } from "node:fs";
import {
  decide,
  type ApiMessage,
  type ApiRequest,
  type ContentBlock,
  type PolicyOptions,
  type Reply,
} from "../claude/scripted-model/policy.js";

type Input = Record<string, unknown>;

export function claudeCall(name: string, input: Input): { name: string; input: Input } {
  switch (name) {
    case "bash":
      return { name: "Bash", input: { command: input.command, description: input.description } };
    case "task":
      return {
        name: "Agent",
        input: {
          description: input.description,
          prompt: input.prompt,
          subagent_type: input.agent_type,
          run_in_background: input.mode === "background",
        },
      };
    case "create":
      return { name: "Write", input: { file_path: input.path, content: input.file_text } };
    case "edit":
      return { name: "Edit", input: { file_path: input.path, old_string: input.old_str, new_string: input.new_str } };
    case "view":
      return { name: "Read", input: { file_path: input.path } };
    default:
      return { name, input };
  }
}

export function copilotCall(name: string, input: Input): { name: string; input: Input } {
  switch (name) {
    case "Bash":
      return {
        name: "bash",
        input: { command: input.command, description: String(input.description ?? "run a command").slice(0, 100) },
      };
    case "Agent": {
      const type = String(input.subagent_type ?? "");
      return {
        name: "task",
        input: {
          name: type,
          description: input.description,
          agent_type: type,
          prompt: input.prompt,
          mode: input.run_in_background === true ? "background" : "sync",
        },
      };
    }
    case "Write":
      return { name: "create", input: { path: input.file_path, file_text: input.content } };
    case "Edit":
      return { name: "edit", input: { path: input.file_path, old_str: input.old_string, new_str: input.new_string } };
    case "Read":
      return { name: "view", input: { path: input.file_path } };
    default:
      return { name, input };
  }
}

const TOOL_NAMES: Record<string, string> = {
  bash: "Bash",
  task: "Agent",
  create: "Write",
  edit: "Edit",
  view: "Read",
  skill: "Skill",
};

const textOf = (c: unknown): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c
          .map((b) => (b && typeof b === "object" && "text" in b ? String((b as { text: unknown }).text) : ""))
          .join("\n")
      : "";

/** Copilot marks no refusal or failing command with is_error: its words do. */
const failed = (text: string) =>
  /^Denied by preToolUse hook:/.test(text) ||
  /completed with exit code [1-9]\d*>\s*$/.test(text) ||
  /^Tool '\w+' does not exist/.test(text);

/**
 * The interactive terminal expands a skill the person typed (`/develop add login`) itself: "The
 * user explicitly invoked the "/develop" skill. …<skill-context name="develop">…ARGUMENTS: add
 * login\n</skill-context>". Read back as what was typed and the skill's text (as Claude Code sends both).
 */
function expandedSkill(said: string): { command: string; body: string } | undefined {
  const m =
    /^The user explicitly invoked the "\/([\w:-]+)" skill\.[^\n]*\n\s*<skill-context name="[^"]*">\n([\s\S]*?)(?:\n\nARGUMENTS: ([\s\S]*?))?\n<\/skill-context>$/.exec(
      said,
    );
  return m ? { command: `/${m[1]!} ${(m[3] ?? "").trim()}`.trim(), body: m[2]! } : undefined;
}

/** One user text block of Copilot's, as the blocks Claude Code would have sent. */
function claudeTexts(raw: string): ContentBlock[] {
  // A background agent gone idle: Copilot's notification, as Claude Code's (the policy waits for it).
  const t = raw.replace(
    /<system_notification>\n?([\s\S]*?)\n?<\/system_notification>/g,
    "<task-notification>\n<status>completed</status>\n<summary>$1</summary>\n</task-notification>",
  );
  if (t.startsWith("<skill-context"))
    return [{ type: "text", text: t.replace(/^<skill-context[^>]*>\n?/, "").replace(/\n?<\/skill-context>\s*$/, "") }];
  if (!t.includes("<current_datetime>")) return [{ type: "text", text: `<system-reminder>\n${t}\n</system-reminder>` }];
  const reminders = [...t.matchAll(/<system_reminder>\n?([\s\S]*?)\n?<\/system_reminder>/g)].map((m) => m[1]!);
  const said = t
    .replace(/<current_datetime>[\s\S]*?<\/current_datetime>\s*/, "")
    .replace(/<system_reminder>[\s\S]*?<\/system_reminder>/g, "")
    .trim();
  const typed = expandedSkill(said);
  const develop = /^\/develop(?:\s+([\s\S]*))?$/.exec(typed?.command ?? said);
  const person = develop
    ? `<command-name>/develop</command-name>\n<command-args>${(develop[1] ?? "").trim()}</command-args>`
    : said;
  return [
    ...(person === "" ? [] : [{ type: "text", text: person }]),
    ...(typed ? [{ type: "text", text: typed.body }] : []),
    ...reminders.map((r) => ({ type: "text", text: `<system-reminder>\n${r}\n</system-reminder>` })),
  ];
}

/** Copilot's request as Claude Code's; the `skill` call (and its result) is the client's, not a step of the plan. */
export function claudeRequest(body: ApiRequest): ApiRequest {
  const system =
    typeof body.system === "string" ? body.system : (body.system ?? []).map((s) => s.text ?? "").join("\n");
  const cwd = /Current working directory: (\S+)/.exec(system)?.[1];
  const skillCalls = new Set<string>();
  /** Each file's whole text as the model's own `create`/whole-file `edit` calls left it. */
  const wrote = new Map<unknown, unknown>();
  const messages: ApiMessage[] = [];
  for (const m of body.messages ?? []) {
    const blocks: ContentBlock[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    const out: ContentBlock[] = [];
    for (const b of blocks) {
      if (m.role === "assistant" && b.type === "tool_use") {
        // `skill`, and the `read_agent` Copilot itself calls after a background agent's notification: the client's, not the plan's.
        if (b.name === "skill" || b.name === "read_agent") {
          skillCalls.add(String(b.id));
          continue;
        }
        const input = b.input ?? {};
        // A whole-file `edit` of the model's own file (ownFileAgain) was a Write to Claude's policy.
        const whole =
          b.name === "edit" &&
          ((wrote.has(input.path) && wrote.get(input.path) === input.old_str) || WHOLE_EDITS.has(String(b.id)));
        const call = whole
          ? { name: "Write", input: { file_path: input.path, content: input.new_str } }
          : claudeCall(String(b.name), input);
        if (b.name === "create" || whole) wrote.set(input.path, b.name === "create" ? input.file_text : input.new_str);
        out.push({ ...b, name: call.name, input: call.input });
      } else if (b.type === "tool_result") {
        if (skillCalls.has(String(b.tool_use_id))) continue;
        const said = textOf(b.content);
        // A task started in the background returns at once: Claude Code's words for that.
        const text = said.replace(
          /^Agent started in background with agent_id: ([\w-]+)\./,
          "Async agent launched successfully.\nagentId: $1",
        );
        out.push({
          type: "tool_result",
          tool_use_id: b.tool_use_id,
          content: text,
          is_error: b.is_error === true || failed(text),
        });
      } else if (m.role === "user" && b.type === "text") out.push(...claudeTexts(String(b.text ?? "")));
      else out.push(b);
    }
    if (out.length > 0) messages.push({ role: m.role, content: out });
  }
  return {
    ...body,
    system: `${system}${cwd ? `\nPrimary working directory: ${cwd}` : ""}`,
    tools: (body.tools ?? []).map((t) => ({ ...t, name: TOOL_NAMES[t.name] ?? t.name })),
    messages,
  };
}

/** Whether the main agent still has to load the /develop skill (its first move after the person's /develop). */
function mustLoadSkill(body: ApiRequest): boolean {
  if (!(body.tools ?? []).some((t) => t.name === "task")) return false;
  const messages = body.messages ?? [];
  const lastUser = messages.findLast((m) => m.role === "user");
  const said = textOf(lastUser?.content);
  const person = /<current_datetime>[\s\S]*?<\/current_datetime>\s*\/develop\b/.test(said);
  return person && messages.at(-1) === lastUser;
}

let ids = 0;

/**
 * The results of the newest calls carry different `dotagent next:` lines: Copilot ran them side
 * by side and shows them in call order, so which is newest is unknown. The Copilot skill says:
 * run `dotagent resume --json` (its helper line is the one the skill shows).
 */
function resumeAfterParallelResults(body: ApiRequest): Reply | undefined {
  if (!(body.tools ?? []).some((t) => t.name === "task")) return undefined;
  const messages = body.messages ?? [];
  const after = messages.slice(messages.findLastIndex((m) => m.role === "assistant") + 1);
  const results = after.flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((c) => c.type === "tool_result").map((c) => textOf(c.content)) : [],
  );
  const lines = new Set(results.flatMap((t) => [...t.matchAll(/^dotagent next: (\{.*\})$/gm)].map((m) => m[1]!)));
  if (lines.size < 2) return undefined;
  const helper = [
    ...JSON.stringify(messages).matchAll(/node \\"([^"\\]*?\/checkpoint\/scripts\/dotagent\.[cm]js)\\" <command>/g),
  ].at(-1)?.[1];
  if (helper === undefined) return undefined;
  return {
    who: "main",
    stop: "tool_use",
    blocks: [
      {
        type: "tool_use",
        id: `toolu_resume_${process.pid}_${++ids}`,
        name: "bash",
        input: { command: `node "${helper}" resume --json`, description: "dotagent resume" },
      },
    ],
  };
}

/** The whole-file edits of a file that was there before the agent (ownFileAgain): Writes to Claude's policy. */
const WHOLE_EDITS = new Set<string>();

/**
 * A `create` of a file this agent already created: Copilot's `create` refuses a file that exists,
 * so the model `edit`s its own earlier text into the new one (as a model that reads the refusal
 * or the reminder does).
 */
function ownFileAgain(
  body: ApiRequest,
  c: { name: string; input: Input },
): { name: string; input: Input; whole?: true } {
  if (c.name !== "create") return c;
  const messages = body.messages ?? [];
  const ok = new Set(
    messages.flatMap((m) =>
      Array.isArray(m.content)
        ? m.content
            .filter((b) => b.type === "tool_result" && /^Created file /.test(textOf(b.content)))
            .map((b) => String(b.tool_use_id))
        : [],
    ),
  );
  const done = new Set(
    messages.flatMap((m) =>
      Array.isArray(m.content)
        ? m.content
            .filter(
              (b) =>
                b.type === "tool_result" && /^(Created file |File .* updated with changes)/.test(textOf(b.content)),
            )
            .map((b) => String(b.tool_use_id))
        : [],
    ),
  );
  const before = messages
    .flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : []))
    .filter(
      (b) =>
        b.type === "tool_use" &&
        (b.name === "create" || b.name === "edit") &&
        (ok.has(String(b.id)) || done.has(String(b.id))) &&
        b.input?.path === c.input.path,
    )
    .at(-1);
  if (before === undefined) {
    // A file that was there before this agent (an earlier attempt's report): the model views it
    // and edits it whole (its text read from disk here stands for that view).
    const path = String(c.input.path ?? "");
    if (path === "" || !existsSync(path)) return c;
    return {
      name: "edit",
      input: { path, old_str: readFileSync(path, "utf8"), new_str: c.input.file_text },
      whole: true,
    };
  }
  return {
    name: "edit",
    input: {
      path: c.input.path,
      old_str: before.name === "create" ? before.input?.file_text : before.input?.new_str,
      new_str: c.input.file_text,
    },
  };
}

/** The scripted model's answer to one of Copilot's requests. */
export function decideCopilot(
  body: ApiRequest,
  options: { agentsDir: string; seq: number; policy?: PolicyOptions; background?: boolean },
): Reply {
  if (mustLoadSkill(body))
    return {
      who: "main",
      stop: "tool_use",
      blocks: [
        { type: "tool_use", id: `toolu_skill_${process.pid}_${++ids}`, name: "skill", input: { skill: "develop" } },
      ],
    };
  const parallel = resumeAfterParallelResults(body);
  if (parallel) return parallel;
  const reply = decide(claudeRequest(body), options);
  // `background`: the model starts every agent with mode "background", though the skill asks for "sync".
  const call = (b: { id?: unknown; name: string; input: Input }) => {
    const { whole, ...c } = ownFileAgain(body, copilotCall(b.name, b.input));
    if (whole) WHOLE_EDITS.add(String(b.id));
    return options.background && c.name === "task" ? { ...c, input: { ...c.input, mode: "background" } } : c;
  };
  return { ...reply, blocks: reply.blocks.map((b) => (b.type === "tool_use" ? { ...b, ...call(b) } : b)) };
}
