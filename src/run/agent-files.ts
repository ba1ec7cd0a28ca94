// The six agents' prompts for the headless runner: the same agents/*.md files /develop spawns in
// Claude Code (front matter: name, tools, model; the body is the system prompt), read at run time
// so an edited agent file means the same in both.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { readProjectText } from "../store/read-file.js";

export interface AgentFile {
  readonly name: string;
  readonly tools: readonly string[];
  readonly model?: string;
  readonly body: string;
}

const AGENT_BYTES = 256 * 1024;

/**
 * Where the agent files are: `--agents DIR`, else the `agents/` folder of the dotagent that is
 * running (the npm package root, the repository, or the plugin folder around the skill's helper),
 * found from `besideFile`, the running CLI file (the cold half has no file of its own).
 */
export function findAgentsDir(explicit: string | undefined, besideFile: string): string {
  if (explicit !== undefined) {
    const dir = resolve(explicit);
    if (!existsSync(join(dir, "pm.md")))
      throw new DotagentError(
        "agents_missing",
        `${explicit} holds no pm.md; give --agents a folder with the six agent files (pm, architect, roundtable, executor, qa, reflector)`,
        EXIT.usage,
      );
    return dir;
  }
  const here = dirname(besideFile);
  // dist/dotagent.mjs → ../agents; skills/checkpoint/scripts/dotagent.mjs (also in plugin/) and
  // src/cli/commands/run.ts → ../../../agents
  for (const up of ["..", "../../.."]) {
    const dir = join(here, up, "agents");
    if (existsSync(join(dir, "pm.md"))) return dir;
  }
  throw new DotagentError(
    "agents_missing",
    `no agents/ folder beside this dotagent (${here}); reinstall dotagent or pass --agents DIR`,
    EXIT.refused,
  );
}

/** Parses one agent file: `---` front matter with `name:` and `tools: A, B`, then the body. */
export function parseAgentFile(file: string, text: string): AgentFile {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match)
    throw new DotagentError(
      "agent_invalid",
      `${file} has no front matter (--- name: … tools: … ---); restore it from the dotagent package`,
      EXIT.invalid,
    );
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "m").exec(match[1]!)?.[1]?.trim();
  const name = field("name");
  const body = match[2]!.trim();
  if (!name || body === "")
    throw new DotagentError(
      "agent_invalid",
      `${file} needs a name in its front matter and a body; restore it from the dotagent package`,
      EXIT.invalid,
    );
  const tools = (field("tools") ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const model = field("model");
  return { name, tools, ...(model && model !== "inherit" ? { model } : {}), body };
}

export function loadAgentFiles(dir: string): Map<string, AgentFile> {
  const agents = new Map<string, AgentFile>();
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith(".md")) continue;
    const file = join(dir, entry);
    const read = readProjectText(file, { maxBytes: AGENT_BYTES, links: "follow" });
    if (read.kind !== "ok") continue;
    const agent = parseAgentFile(file, read.text);
    agents.set(agent.name, agent);
  }
  return agents;
}

/** The largest CLAUDE.md the runner hands its agents (a bigger one is named and left out). */
export const INSTRUCTIONS_BYTES = 64 * 1024;

/**
 * The project's CLAUDE.md, as Claude Code gives it to every agent of an interactive session: the
 * text, or why not (none, too big, a link out): said once by the run.
 */
export function readProjectInstructions(root: string): { text?: string; note: string } {
  const read = readProjectText(join(root, "CLAUDE.md"), { maxBytes: INSTRUCTIONS_BYTES, links: "inside", root });
  if (read.kind === "missing") return { note: "no CLAUDE.md in the project" };
  if (read.kind !== "ok") return { note: `CLAUDE.md left out: it ${read.reason}` };
  if (read.text.trim() === "") return { note: "CLAUDE.md is empty" };
  return { text: read.text.trim(), note: "the agents read the project's CLAUDE.md" };
}

/**
 * The agent files of a workflow with a pinned definition (SPEC §20), by the names its steps use:
 * the project's `.claude/agents/<name>.md` first (a definition's own agent, or a project's edit of
 * a built-in one), else the one `dir` holds (`--agents DIR`, else the package's). develop's runs
 * read `dir` only, as before.
 */
export function agentsForFlow(
  root: string,
  names: Iterable<string>,
  base: ReadonlyMap<string, AgentFile>,
): Map<string, AgentFile> {
  const agents = new Map(base);
  for (const name of names) {
    const file = join(root, ".claude", "agents", `${name}.md`);
    const read = readProjectText(file, { maxBytes: AGENT_BYTES, links: "inside", root });
    if (read.kind === "missing") continue;
    if (read.kind !== "ok")
      throw new DotagentError(
        "agent_invalid",
        `.claude/agents/${name}.md ${read.reason}; the workflow's step needs it as the ${name} agent`,
        EXIT.invalid,
      );
    // Known by the file's name, as the definition names it.
    agents.set(name, { ...parseAgentFile(`.claude/agents/${name}.md`, read.text), name });
  }
  return agents;
}
