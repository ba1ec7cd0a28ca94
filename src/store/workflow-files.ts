// Reads the project's workflow definitions (.dotagent/workflows/<name>.json, SPEC §20). A
// definition names agents and shell commands dotagent will run, so it is read as hostile input:
// the folder and each file must be real (a link out of the project is refused), a file is at most
// MAX_DEF_BYTES, the folder at most MAX_DEF_FILES definitions, and every problem is a value naming
// the file, the JSON path and the fix. Nothing here writes.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeJson } from "../schema/json.js";
import { BUILTIN_AGENTS, BUILTIN_WORKFLOWS, type SourcedDef } from "../core/workflow-defs.js";
import {
  WORKFLOW_NAME_PATTERN,
  defProblem,
  resolveWorkflow,
  type DefProblem,
  type Resolved,
} from "../core/resolve-workflow.js";
import { readProjectText } from "./read-file.js";

export const WORKFLOWS_DIR = ".dotagent/workflows";
export const MAX_DEF_BYTES = 64 * 1024;
export const MAX_DEF_FILES = 100;

export interface ProjectDefs {
  readonly defs: readonly SourcedDef[];
  /** Every problem of the files that could not be read or parsed, file by file; their names are not offered. */
  readonly problems: readonly DefProblem[];
}

/** The built-in definitions, as sources. */
export function builtinDefs(): SourcedDef[] {
  return Object.entries(BUILTIN_WORKFLOWS).map(([name, def]) => ({ name, source: "built-in", def }));
}

export function readProjectDefs(root: string, parse: ParseDef): ProjectDefs {
  const dir = join(root, WORKFLOWS_DIR);
  const problems: DefProblem[] = [];
  for (const folder of [join(root, ".dotagent"), dir]) {
    const rel = folder.slice(root.length + 1);
    let stat;
    try {
      stat = lstatSync(folder);
    } catch {
      return { defs: [], problems: [] };
    }
    if (!stat.isDirectory())
      return {
        defs: [],
        problems: [
          defProblem(
            rel,
            "",
            `${rel} is ${stat.isSymbolicLink() ? "a link" : "not a folder"}; workflow definitions live in a real folder ${WORKFLOWS_DIR}/ inside the project`,
          ),
        ],
      };
  }
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch (error) {
    return {
      defs: [],
      problems: [
        defProblem(
          WORKFLOWS_DIR,
          "",
          `${WORKFLOWS_DIR} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); check its permissions`,
        ),
      ],
    };
  }
  if (names.length > MAX_DEF_FILES)
    return {
      defs: [],
      problems: [
        defProblem(
          WORKFLOWS_DIR,
          "",
          `${WORKFLOWS_DIR} holds ${names.length} definitions: at most ${MAX_DEF_FILES}; remove the ones you do not use`,
        ),
      ],
    };
  const defs: SourcedDef[] = [];
  for (const file of names) {
    const read = readDefFile(root, file, parse);
    if ("problems" in read) problems.push(...read.problems);
    else defs.push(read.def);
  }
  return { defs, problems };
}

function readDefFile(root: string, file: string, parse: ParseDef): { def: SourcedDef } | { problems: DefProblem[] } {
  const source = `${WORKFLOWS_DIR}/${file}`;
  const name = file.slice(0, -".json".length);
  const problem = (path: string, message: string) => ({ problems: [defProblem(source, path, message)] });
  if (!WORKFLOW_NAME_PATTERN.test(name))
    return problem(
      "",
      `${JSON.stringify(name.slice(0, 50))} is not a workflow name: rename the file to lowercase letters, digits and '-' (e.g. review-first.json)`,
    );
  if (name in BUILTIN_WORKFLOWS)
    return problem(
      "",
      `${name} is a built-in workflow; name yours otherwise and write \`"extends": "${name}"\` to build on it`,
    );
  const read = readProjectText(join(root, source), { maxBytes: MAX_DEF_BYTES, links: "inside", root });
  if (read.kind === "missing") return problem("", "disappeared while it was read; run the command again");
  if (read.kind === "refused")
    return problem("", `${read.reason}${/bytes/.test(read.reason) ? "; a definition is a few KB" : ""}`);
  const decoded = decodeJson(read.text);
  if (!decoded.ok)
    return problem(
      "",
      `${decoded.message}; fix the JSON (an editor with the schema from \`dotagent schema workflow\` shows where)`,
    );
  return parseDef(source, name, decoded.value, parse);
}

type ParseDef = typeof import("../schema/workflow.js").parseWorkflowDef;

function parseDef(
  source: string,
  name: string,
  data: unknown,
  parse: ParseDef,
): { def: SourcedDef } | { problems: DefProblem[] } {
  const parsed = parse(data);
  if (!parsed.ok) return { problems: parsed.problems.map((p) => schemaProblem(source, p.path, p.message)) };
  return { def: { name, source, def: parsed.value } };
}

/**
 * A field the schema refused, with what to do (its words say what is wrong, not what to write).
 * One unknown key is told at the key itself (`steps[0].sneaky`), where the person deletes it.
 */
function schemaProblem(source: string, path: string, message: string): DefProblem {
  const unknown = /^unknown keys (.+)$/.exec(message)?.[1];
  if (unknown === undefined)
    return defProblem(source, path, `${message}; \`dotagent schema workflow\` describes the field (SPEC §20)`);
  const fields = "(`dotagent schema workflow` lists the fields a definition takes)";
  if (unknown.includes(",")) return defProblem(source, path, `${message}; take them out ${fields}`);
  return {
    source,
    path,
    written_path: path === "" ? unknown : `${path}.${unknown}`,
    message: `unknown key ${unknown}; take it out ${fields}`,
  };
}

/** The agents a definition may name: the built-in ones and the project's .claude/agents/<name>.md. */
export function knownAgents(root: string): Set<string> {
  const names = new Set<string>(BUILTIN_AGENTS);
  try {
    for (const entry of readdirSync(join(root, ".claude", "agents"), { withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith(".md")) names.add(entry.name.slice(0, -3));
    }
  } catch {
    // No project agents: the built-ins only.
  }
  return names;
}

export interface WorkflowCatalog {
  readonly all: readonly SourcedDef[];
  /** Every problem of the files that could not be read (readProjectDefs). */
  readonly problems: readonly DefProblem[];
  resolve(name: string): Resolved;
}

/** The built-in and project definitions, and a resolver over them with the project's agents. */
export async function workflowCatalog(root: string): Promise<WorkflowCatalog> {
  // zod is loaded only here: `status` of a develop workflow never pays for it.
  const { parseWorkflowDef } = await import("../schema/workflow.js");
  const project = readProjectDefs(root, parseWorkflowDef);
  const all = [...builtinDefs(), ...project.defs];
  const agents = knownAgents(root);
  const byName = new Map(all.map((d) => [d.name, d]));
  const unreadable = (name: string) => {
    const broken = project.problems.filter((p) => p.source === `${WORKFLOWS_DIR}/${name}.json`);
    return broken.length > 0 ? broken : undefined;
  };
  return {
    all,
    problems: project.problems,
    resolve(name) {
      const broken = unreadable(name);
      if (broken !== undefined) return { ok: false, problems: broken };
      return resolveWorkflow(name, (n) => byName.get(n), { knownAgents: agents, unreadable });
    },
  };
}

/** One line for a definition problem: `<file>: <place as written>: <message>`. */
export function describeDefProblem(problem: DefProblem): string {
  return `${problem.source === "" ? "" : `${problem.source}: `}${problem.written_path === "" ? "" : `${problem.written_path}: `}${problem.message}`;
}

/** Problems grouped by file, in their order: one entry per file the person edits. */
export function problemsByFile(problems: readonly DefProblem[]): Array<{ source: string; problems: DefProblem[] }> {
  const files = new Map<string, DefProblem[]>();
  for (const p of problems) files.set(p.source, [...(files.get(p.source) ?? []), p]);
  return [...files].map(([source, of]) => ({ source, problems: of }));
}
