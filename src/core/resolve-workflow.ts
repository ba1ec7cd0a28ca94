// From definitions to a Flow (SPEC §20): follow `extends`, apply the edits, fill the defaults and
// check every rule the engine relies on. A definition is input a person (or, if it slipped past
// the write guard, an agent) wrote by hand: each problem is a value naming the file, the place in
// what was written there and the fix; nothing here throws or touches the disk.
//
// Where a problem is told: the person edits what they wrote, never the expanded list. Every step of
// the expanded list keeps where it was written (which definition of the chain, its file, `steps[2]`
// or `insert[0].steps[1]` or `replace[0]`), and every removal its `remove[i]`. A problem in a step's
// own fields is told at its place; one between two steps (a duplicate id, two steps writing one
// report, a rework or a condition that points at the other) at the one written last in the chain
// (the edit that broke what its parent had right); a step that points at one a `remove` took away,
// at that `remove[i]`. `path` stays where it was found in the resolved steps, as `workflows show`
// numbers them.
import { posix } from "node:path";
import { REPORT, REPORTS_DIR } from "./paths.js";
import type { Flow, Step, StepCondition } from "./flow.js";
import { compilePattern } from "./linear-pattern.js";
import { controlCharacterIn } from "./words.js";
import type { SourcedDef, StepDef, WorkflowDef } from "./workflow-defs.js";

/** The designs a choose step asks for when its definition names none. */
export const DEFAULT_DESIGNS: readonly { readonly name: string; readonly angle: string }[] = [
  { name: "minimal", angle: "the smallest change that meets every acceptance criterion" },
  { name: "robust", angle: "a design that holds up as the feature grows" },
];

export const MAX_STEPS = 50;
export const MAX_EXTENDS_DEPTH = 8;
export const MAX_ROUNDS_LIMIT = 20;
export const MAX_RETRIES = 10;
export const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;
export const MAX_COMMAND_LENGTH = 2000;
export const WORKFLOW_NAME_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;
export const STEP_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;
export const AGENT_NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;
const REPORT_NAME_PATTERN = /^[A-Za-z0-9][\w.-]*(?:\/[A-Za-z0-9][\w.-]*)*\.(?:json|md)$/;
/** Report names dotagent itself writes or reads a fixed way: no step may claim them. */
const RESERVED_REPORTS = [
  /^designs\//,
  /^tasks\//,
  /^unowned\//,
  /^roundtable\.json$/,
  /^final_design\.json$/,
  /^plan(?:-\d+)?\.json$/,
  /\.rework-\d+\.json$/,
];

export interface DefProblem {
  /** "built-in" or the project-relative file to edit (where `written_path` is). */
  readonly source: string;
  /** Where it was found: in the resolved steps (`steps[4].max_rounds`, numbered as `workflows show` lists them) when found after `extends` was expanded, else as `written_path`; "" for the whole file. */
  readonly path: string;
  /** The place in what was written in `source`: `insert[0].steps[0].max_rounds`, `remove[1]`, `extends`; "" for the whole file. */
  readonly written_path: string;
  readonly message: string;
}

/** A problem found where it was written. */
export function defProblem(source: string, path: string, message: string): DefProblem {
  return { source, path, written_path: path, message };
}

export type Resolved = { ok: true; flow: Flow; sources: string[] } | { ok: false; problems: DefProblem[] };

export interface ResolveOptions {
  /** Agent names that exist (built-in agents and the project's agent files); undefined: not checked. */
  readonly knownAgents?: ReadonlySet<string> | undefined;
  /** The problems of a definition that exists but could not be read (not JSON, unknown keys): an `extends` of it says so. */
  readonly unreadable?: ((name: string) => readonly DefProblem[] | undefined) | undefined;
}

/** Where a step or a removal was written: the definition of the chain (0: the one resolved), its name and file, the place in it. */
interface Written {
  readonly layer: number;
  readonly name: string;
  readonly source: string;
  readonly at: string;
}

interface Placed extends Written {
  readonly def: StepDef;
}

/** The steps as expanded so far, and the steps `remove` took away (by id, the latest removal). */
interface Expansion {
  readonly steps: Placed[];
  readonly removed: Map<string, Placed>;
}

/** Resolves the definition `name`, looked up with `lookup` (built-ins and the project's files). */
export function resolveWorkflow(
  name: string,
  lookup: (name: string) => SourcedDef | undefined,
  options: ResolveOptions = {},
): Resolved {
  const problems: DefProblem[] = [];
  const chain: SourcedDef[] = [];
  let current = lookup(name);
  if (current === undefined)
    return fail("", "", `no workflow named ${JSON.stringify(name)}; \`dotagent workflows\` lists them`);
  while (current !== undefined) {
    if (chain.some((c) => c.name === current!.name)) {
      const loop = [
        ...chain.slice(chain.findIndex((c) => c.name === current!.name)).map((c) => c.name),
        current.name,
      ].join(" → ");
      return fail(
        chain.at(-1)!.source,
        "extends",
        `extends form a cycle: ${loop}; remove this extends or another one in the cycle`,
      );
    }
    chain.push(current);
    if (chain.length > MAX_EXTENDS_DEPTH)
      return fail(
        current.source,
        "extends",
        `more than ${MAX_EXTENDS_DEPTH} definitions extend each other; extend one nearer the base (flatten the chain)`,
      );
    const parent: string | undefined = current.def.extends;
    if (parent === undefined) break;
    const next = lookup(parent);
    if (next === undefined) {
      const unreadable = options.unreadable?.(parent);
      if (unreadable !== undefined && unreadable.length > 0) {
        problems.push(
          defProblem(
            current.source,
            "extends",
            `extends ${JSON.stringify(parent)}, whose definition ${unreadable[0]!.source} is invalid: fix it first (\`dotagent workflows validate ${parent}\`)`,
          ),
          ...unreadable,
        );
        return { ok: false, problems };
      }
      return fail(
        current.source,
        "extends",
        `extends ${JSON.stringify(parent)}, which is no workflow; name one \`dotagent workflows\` lists`,
      );
    }
    current = next;
  }
  for (const { source, def } of chain) refuseControls(source, def, problems);
  if (problems.length > 0) return failed();
  // Apply from the base down: each extending definition edits its parent's steps.
  const expansion: Expansion = { steps: [], removed: new Map() };
  for (let layer = chain.length - 1; layer >= 0; layer--) {
    const written = chain[layer]!;
    const edited =
      written.def.extends === undefined
        ? fullSteps(written, layer, problems)
        : applyEdits(written, layer, expansion, problems);
    if (edited === undefined) return failed();
    expansion.steps.splice(0, expansion.steps.length, ...edited);
  }
  const description = describe(chain, expansion);
  const flow = checkSteps(chain, name, description, expansion, options, problems);
  if (flow === undefined || problems.length > 0) return failed();
  return { ok: true, flow, sources: chain.map((c) => c.source) };

  function fail(source: string, path: string, message: string): Resolved {
    return { ok: false, problems: [...problems, defProblem(source, path, message)] };
  }

  /**
   * A problem told in a parent's file is that parent's own (it is invalid alone too): the file
   * resolved says first that it extends an invalid definition, then the parent's problems follow.
   */
  function failed(): Resolved {
    const top = chain[0]!;
    if (chain.length > 1 && problems.some((p) => p.source !== top.source)) {
      const parent = chain[1]!;
      const where = parent.source === "built-in" ? `the built-in ${parent.name}` : parent.source;
      problems.unshift(
        defProblem(
          top.source,
          "extends",
          `extends ${JSON.stringify(parent.name)}, which is invalid itself: fix ${where} first (\`dotagent workflows validate ${parent.name}\`)`,
        ),
      );
    }
    return { ok: false, problems };
  }
}

/**
 * No text of a definition holds a control character (tab and line feed aside, controlCharacterIn):
 * its titles, descriptions and commands reach a person's terminal and the agents' prompts, and a
 * NUL cannot be passed to a command at all. Every string is checked, so no field is forgotten.
 */
function refuseControls(source: string, def: WorkflowDef, problems: DefProblem[]): void {
  const walk = (value: unknown, path: string): void => {
    if (typeof value === "string") {
      const found = controlCharacterIn(value);
      if (found !== null)
        problems.push(
          defProblem(
            source,
            path,
            `holds a control character (${found}): no text of a definition may (tab and line feed aside), as it could rewrite what a terminal shows or cut a command short; write the text without it`,
          ),
        );
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === "object")
      for (const [key, item] of Object.entries(value)) walk(item, path === "" ? key : `${path}.${key}`);
  };
  walk(def, "");
}

function fullSteps({ name, source, def }: SourcedDef, layer: number, problems: DefProblem[]): Placed[] | undefined {
  for (const key of ["insert", "replace", "remove"] as const) {
    if (def[key] !== undefined)
      problems.push(
        defProblem(
          source,
          key,
          `only a definition that extends another may ${key} steps; add \`"extends": "develop"\` or write the steps out`,
        ),
      );
  }
  if (def.steps === undefined || def.steps.length === 0) {
    problems.push(
      defProblem(source, "steps", "a workflow needs steps (or `extends` another workflow); list at least one step"),
    );
    return undefined;
  }
  return problems.length > 0
    ? undefined
    : def.steps.map((step, i) => ({ def: step, layer, name, source, at: `steps[${i}]` }));
}

function applyEdits(
  { name, source, def }: SourcedDef,
  layer: number,
  expansion: Expansion,
  problems: DefProblem[],
): Placed[] | undefined {
  if (def.steps !== undefined) {
    problems.push(
      defProblem(
        source,
        "steps",
        `a definition that extends another edits its steps with insert, replace and remove; it cannot list steps too: drop \`extends\` or turn the steps into edits`,
      ),
    );
    return undefined;
  }
  const placed = (step: StepDef, at: string): Placed => ({ def: step, layer, name, source, at });
  let steps = [...expansion.steps];
  const ids = () => steps.map((s) => s.def.id).join(", ");
  /** Why an id this definition names is not there: its own remove took it away. */
  const removedHere = (id: string) => {
    const removal = expansion.removed.get(id);
    return removal !== undefined && removal.layer === layer ? ` (${removal.at} removes it)` : "";
  };
  (def.remove ?? []).forEach((id, i) => {
    const step = steps.find((s) => s.def.id === id);
    if (step === undefined)
      problems.push(
        defProblem(
          source,
          `remove[${i}]`,
          `no step ${JSON.stringify(id)} to remove${removedHere(id)}; name one of ${ids()}`,
        ),
      );
    else expansion.removed.set(id, placed(step.def, `remove[${i}]`));
    steps = steps.filter((s) => s.def.id !== id);
  });
  (def.replace ?? []).forEach((step, i) => {
    const at = steps.findIndex((s) => s.def.id === step.id);
    if (at < 0)
      problems.push(
        defProblem(
          source,
          `replace[${i}].id`,
          `no step ${JSON.stringify(step.id)} to replace${removedHere(step.id)}; name one of ${ids()}, or use insert to add a step`,
        ),
      );
    else steps[at] = placed(step, `replace[${i}]`);
  });
  (def.insert ?? []).forEach((insert, i) => {
    const anchor = insert.after ?? insert.before;
    if ((insert.after === undefined) === (insert.before === undefined)) {
      problems.push(
        defProblem(source, `insert[${i}]`, "name exactly one of `after` or `before`: the step id to insert next to"),
      );
      return;
    }
    const side = insert.after !== undefined ? "after" : "before";
    const at = steps.findIndex((s) => s.def.id === anchor);
    if (at < 0) {
      problems.push(
        defProblem(
          source,
          `insert[${i}].${side}`,
          `no step ${JSON.stringify(anchor)} to insert ${side}${removedHere(anchor!)}; name one of ${ids()}`,
        ),
      );
      return;
    }
    steps.splice(
      side === "after" ? at + 1 : at,
      0,
      ...insert.steps.map((step, j) => placed(step, `insert[${i}].steps[${j}]`)),
    );
  });
  return problems.length > 0 ? undefined : steps;
}

/**
 * The nearest description in the chain; when a definition below it (nearer the one resolved)
 * edits the steps and says nothing, that description is the parent's story, not this one's
 * (`tested` extending develop read "… → verification → reflection" with its TESTS left out): it
 * says what the edits did instead, `develop, plus TESTS`, `develop, without ARCHITECTURE`.
 */
function describe(chain: readonly SourcedDef[], expansion: Expansion): string {
  const at = chain.findIndex((c) => c.def.description !== undefined);
  const base = at < 0 ? undefined : chain[at]!;
  const edited = (at < 0 ? chain : chain.slice(0, at)).some(
    (c) => (c.def.remove?.length ?? 0) + (c.def.replace?.length ?? 0) + (c.def.insert?.length ?? 0) > 0,
  );
  if (base === undefined || !edited) return base?.def.description ?? "";
  const mine = (layer: number) => layer < at;
  const added = expansion.steps.filter((p) => mine(p.layer) && p.at.startsWith("insert")).map((p) => p.def.id);
  const replaced = expansion.steps.filter((p) => mine(p.layer) && p.at.startsWith("replace")).map((p) => p.def.id);
  const removed = [...expansion.removed.values()].filter((p) => mine(p.layer)).map((p) => p.def.id);
  const parts = [
    added.length > 0 ? `plus ${added.join(", ")}` : "",
    replaced.length > 0 ? `its ${replaced.join(", ")} replaced` : "",
    removed.length > 0 ? `without ${removed.join(", ")}` : "",
  ].filter(Boolean);
  return parts.length === 0 ? (base.def.description ?? "") : `${base.name}, ${parts.join(", ")}`;
}

/** Checks the expanded steps and fills their defaults; problems are pushed (told where written), the Flow returned when there are none. */
function checkSteps(
  chain: readonly SourcedDef[],
  name: string,
  description: string,
  expansion: Expansion,
  options: ResolveOptions,
  problems: DefProblem[],
): Flow | undefined {
  const placed = expansion.steps;
  const defs = placed.map((p) => p.def);
  const top = chain[0]!;
  /** The definition nearest the one resolved that writes `field`: the edit that caused a problem of the whole list. */
  const cause = (field: "remove" | "insert"): SourcedDef => chain.find((c) => (c.def[field]?.length ?? 0) > 0) ?? top;
  /** A problem in step i's own fields (`sub`: ".run", ""), told where the step was written. */
  const inStep = (i: number, sub: string, message: string) =>
    problems.push({
      source: placed[i]!.source,
      path: `steps[${i}]${sub}`,
      written_path: `${placed[i]!.at}${sub}`,
      message,
    });
  /** How step k is named from where `from` was written: `steps[0]` in the same file, else `develop's steps[3]`. */
  const place = (k: number, from: Written) =>
    placed[k]!.source === from.source ? placed[k]!.at : `${placed[k]!.name}'s ${placed[k]!.at}`;
  /** Of two steps a problem lies between, the one written last in the chain (`i` on a tie): the edit that broke it. */
  const blamed = (i: number, j: number) => (placed[j]!.layer < placed[i]!.layer ? j : i);

  if (!WORKFLOW_NAME_PATTERN.test(name))
    problems.push(
      defProblem(
        top.source,
        "",
        `${JSON.stringify(name.slice(0, 50))} is not a workflow name: lowercase letters, digits and '-', starting with a letter, at most 40`,
      ),
    );
  if (defs.length === 0) {
    const by = cause("remove");
    problems.push({
      source: by.source,
      path: "steps",
      written_path: "remove",
      message: "removes every step, and a workflow needs at least one: keep a step or insert one",
    });
  }
  if (defs.length > MAX_STEPS) {
    const by = cause("insert");
    problems.push({
      source: by.source,
      path: "steps",
      written_path: by.def.insert === undefined ? "steps" : "insert",
      message: `${defs.length} steps once expanded: at most ${MAX_STEPS}; insert fewer`,
    });
    return undefined;
  }
  const seen = new Map<string, number>();
  const reportOwner = new Map<string, number>();
  const steps: Step[] = [];
  defs.forEach((def, i) => {
    const at = `steps[${i}]`;
    if (!STEP_ID_PATTERN.test(def.id)) {
      inStep(
        i,
        ".id",
        `${JSON.stringify(def.id.slice(0, 50))} is not a step id: a letter, then letters, digits, '_' or '-', at most 40`,
      );
      return;
    }
    const first = seen.get(def.id);
    if (first !== undefined) {
      const by = blamed(i, first);
      const other = by === i ? first : i;
      const parent = placed[other]!.source !== placed[by]!.source;
      inStep(
        by,
        ".id",
        `${def.id} is also ${place(other, placed[by]!)}.id; step ids must be unique: ${parent ? `rename this step, or use replace to change ${placed[other]!.name}'s` : "rename one of them"}`,
      );
    } else seen.set(def.id, i);
    // A gate's name is a stable field skills read (SPEC §5): only a built-in names one; extends carries it with the step.
    if (def.named_gate !== undefined && (placed[i]!.source !== "built-in" || def.kind !== "agent"))
      inStep(i, ".named_gate", "only a built-in agent step names its gate; remove `named_gate`");
    if (def.said !== undefined && placed[i]!.source !== "built-in")
      inStep(i, ".said", "only a built-in step says how messages name it (they name yours by its id); remove `said`");
    const step = checkStep(def, at, (path, message) => inStep(i, path.slice(at.length), message), options);
    checkRework(i);
    if (step === undefined) return;
    for (const report of step.kind === "choose" || step.kind === "tasks" ? [] : step.reports) {
      const owner = reportOwner.get(report);
      if (owner !== undefined) {
        const by = blamed(i, owner);
        const other = by === i ? owner : i;
        inStep(
          by,
          ".report",
          `${report.replace(`${REPORTS_DIR}/`, "")} is also the report of step ${defs[other]!.id} (${place(other, placed[by]!)}); each step writes its own: name another report`,
        );
      } else reportOwner.set(report, i);
    }
    steps.push(step);
  });
  for (const kind of ["choose", "tasks"] as const) {
    const of = defs.flatMap((d, i) => (d.kind === kind ? [i] : []));
    if (of.length > 1) {
      const by = blamed(of[1]!, of[0]!);
      const other = by === of[1] ? of[0]! : of[1]!;
      inStep(
        by,
        ".kind",
        `only one ${kind} step per workflow, and step ${defs[other]!.id} (${place(other, placed[by]!)}) is one: its reports have fixed places; keep one of them`,
      );
    }
  }
  defs.forEach((_, i) => checkCondition(i));
  return problems.length > 0 ? undefined : { name, description, steps };

  /** A check's rework goes back to an earlier tasks or agent step. */
  function checkRework(i: number): void {
    const def = defs[i]!;
    if (def.kind !== "check" || def.rework === undefined) return;
    const rework = def.rework;
    const target = defs.findIndex((s) => s.id === rework);
    if (target < 0) {
      const removal = expansion.removed.get(rework);
      if (removal !== undefined && removal.layer < placed[i]!.layer) {
        problems.push({
          source: removal.source,
          path: `steps[${i}].rework`,
          written_path: removal.at,
          message: `removes ${rework}, the step ${def.id} (${place(i, removal)}) sends the work back to; remove or replace ${def.id} too, or keep ${rework}`,
        });
      } else {
        const why = removal === undefined ? "" : ` (${removal.at} removes it)`;
        inStep(
          i,
          ".rework",
          `no step ${JSON.stringify(rework)} to send the work back to${why}; name an earlier tasks or agent step${candidates(i)}`,
        );
      }
      return;
    }
    const kind = defs[target]!.kind;
    if (target < i && (kind === "tasks" || kind === "agent")) return;
    const by = blamed(i, target);
    if (by === i) {
      const message =
        target > i
          ? `${rework} is not before ${def.id}: rework goes back to an earlier step; name one${candidates(i)}`
          : `${rework} is a ${kind} step: rework goes back to a tasks or an agent step; name one${candidates(i)}`;
      inStep(i, ".rework", message);
    } else if (target > i)
      inStep(
        target,
        "",
        `puts ${rework} after ${def.id} (${place(i, placed[target]!)}), which sends the work back to it: rework goes back to an earlier step; put ${rework} before ${def.id}`,
      );
    else
      inStep(
        target,
        ".kind",
        `${rework} is a ${kind} step, but ${def.id} (${place(i, placed[target]!)}) sends the work back to it: rework goes back to a tasks or an agent step; keep ${rework} one, or replace ${def.id} too`,
      );
  }

  /** ": IMPLEMENTATION, NOTES": the steps before i a rework may name. */
  function candidates(i: number): string {
    const ids = defs
      .slice(0, i)
      .filter((d) => d.kind === "tasks" || d.kind === "agent")
      .map((d) => d.id);
    return ids.length === 0 ? " (there is none before it: add one, or drop rework)" : ` (${ids.join(", ")})`;
  }

  /** A condition reads a report some earlier step writes (or the request). */
  function checkCondition(i: number): void {
    const def = defs[i]!;
    const report = def.when?.report;
    if (report === undefined || report === "request") return;
    const path = reportPath(report);
    const writes = (d: StepDef) => path !== undefined && writtenReports(d).includes(path);
    const writer = defs.findIndex(writes);
    const removal =
      writer < 0 ? [...expansion.removed.values()].find((r) => writes(r.def) && r.layer < placed[i]!.layer) : undefined;
    if (removal !== undefined) {
      problems.push({
        source: removal.source,
        path: `steps[${i}].when.report`,
        written_path: removal.at,
        message: `removes ${removal.def.id}, whose report ${report} step ${def.id} (${place(i, removal)}) reads in its when; remove or replace ${def.id} too, or keep ${removal.def.id}`,
      });
      return;
    }
    if (writer >= 0 && writer < i) return;
    if (writer > i && blamed(i, writer) === writer) {
      inStep(
        writer,
        "",
        `puts ${defs[writer]!.id} (it writes ${report}) after ${def.id} (${place(i, placed[writer]!)}), whose when reads that report: put ${defs[writer]!.id} before ${def.id}`,
      );
      return;
    }
    inStep(
      i,
      ".when.report",
      `${report} is not a report of an earlier step; a condition reads what an earlier step wrote, or "request": name one of those`,
    );
  }
}

/** The reports a step as written leaves under memory/reports/ (what a later `when` may read). */
function writtenReports(def: StepDef): string[] {
  if (def.kind === "choose") return [REPORT.finalDesign];
  if (def.kind === "tasks") return [];
  const names =
    def.report === undefined
      ? def.kind === "agent" || def.agent !== undefined
        ? []
        : [`steps/${def.id}.json`]
      : typeof def.report === "string"
        ? [def.report]
        : [...def.report];
  return names.flatMap((n) => reportPath(n) ?? []);
}

type Problem = (path: string, message: string) => void;

function checkStep(def: StepDef, at: string, report: Problem, options: ResolveOptions): Step | undefined {
  let failed = false;
  const problem: Problem = (path, message) => {
    failed = true;
    report(path, message);
  };
  const common = {
    id: def.id,
    ...(def.title === undefined ? {} : { title: def.title }),
    ...(def.when === undefined ? {} : { when: checkCondition(def.when, `${at}.when`, problem) }),
    ...(def.retries === undefined ? {} : { retries: def.retries }),
    ...(def.timeout === undefined ? {} : { timeout: def.timeout }),
    ...(def.said === undefined ? {} : { said: def.said }),
  };
  const agent = (field: "agent" | "reducer", fallback?: string): string => {
    const value = def[field] ?? fallback;
    if (value === undefined) {
      problem(
        `${at}.${field}`,
        `a ${def.kind} step needs ${field === "agent" ? "an agent" : "a reducer agent"} (the name of its agent file, e.g. ${field === "agent" ? '"pm"' : '"roundtable"'})`,
      );
      return "";
    }
    if (!AGENT_NAME_PATTERN.test(value))
      problem(
        `${at}.${field}`,
        `${JSON.stringify(value.slice(0, 50))} is not an agent name: lowercase letters, digits and '-'; name its agent file without .md`,
      );
    else if (options.knownAgents !== undefined && !options.knownAgents.has(value))
      problem(
        `${at}.${field}`,
        `unknown agent ${JSON.stringify(value)}: write .claude/agents/${value}.md (or name a built-in agent)`,
      );
    return value;
  };
  const reports = (fallback: string | undefined, json: boolean): string[] => {
    const given =
      def.report === undefined
        ? fallback === undefined
          ? []
          : [fallback]
        : typeof def.report === "string"
          ? [def.report]
          : [...def.report];
    if (given.length === 0)
      problem(
        `${at}.report`,
        `a ${def.kind} step needs a report: the file under memory/reports/ its agent writes, e.g. "${def.id.toLowerCase()}.json"`,
      );
    return given.flatMap((name, j) => {
      const path = reportPath(name);
      const where = def.report === undefined || typeof def.report === "string" ? `${at}.report` : `${at}.report[${j}]`;
      if (path === undefined) {
        problem(
          where,
          `${JSON.stringify(name.slice(0, 80))} is not a report under memory/reports/: a relative name like "review.json" or "security/review.md", no '..'`,
        );
        return [];
      }
      const rel = path.slice(REPORTS_DIR.length + 1);
      if (RESERVED_REPORTS.some((r) => r.test(rel)))
        problem(
          where,
          `${rel} is dotagent's own (designs, tasks, plans, rework copies); name the report something else`,
        );
      if (json && !rel.endsWith(".json"))
        problem(
          where,
          `${rel}: a ${def.kind} step's report is JSON (it holds a boolean \`passed\`); name a .json report`,
        );
      return [path];
    });
  };
  const command = (): string => {
    const run = def.run ?? "";
    if (run.trim() === "") problem(`${at}.run`, `a ${def.kind} step needs the shell command to run, e.g. "npm test"`);
    else if (run.length > MAX_COMMAND_LENGTH)
      problem(
        `${at}.run`,
        `the command is ${run.length} characters: at most ${MAX_COMMAND_LENGTH}; put it in a script and run that`,
      );
    return run;
  };
  const reject = (field: keyof StepDef, why: string) => {
    if (def[field] !== undefined) problem(`${at}.${field}`, `${why}; remove \`${field}\``);
  };
  let step: Step | undefined;
  switch (def.kind) {
    case "agent":
      reject("run", "an agent step runs an agent, not a command (a shell step runs one)");
      reject("reducer", "only a choose step has a reducer");
      reject("rework", "only a check step sends work back");
      if (def.gate !== undefined && def.gate !== "approve")
        problem(`${at}.gate`, `an agent step's gate is "approve" (or none): write "approve" or remove \`gate\``);
      step = {
        ...common,
        kind: "agent",
        agent: agent("agent"),
        reports: reports(undefined, false),
        ...(def.gate === "approve" ? { gate: "approve" as const } : {}),
        ...(def.named_gate === undefined ? {} : { named_gate: def.named_gate }),
      };
      break;
    case "choose":
      reject("run", "a choose step runs agents, not a command");
      reject("report", "a choose step's reports are fixed: designs/<name>.json, roundtable.json and final_design.json");
      if (def.gate !== undefined && def.gate !== "choose")
        problem(`${at}.gate`, `a choose step's gate is "choose" (the person picks): write "choose" or remove \`gate\``);
      step = {
        ...common,
        kind: "choose",
        agent: agent("agent"),
        reducer: agent("reducer"),
        designs: checkDesigns(def, at, problem),
        gate: "choose",
        reports: [REPORT.finalDesign],
      };
      break;
    case "tasks":
      for (const field of ["run", "report", "gate", "reducer", "rework"] as const)
        reject(
          field,
          `a tasks step takes no ${field}: its plan is the design's tasks, each run by its agent in a worktree`,
        );
      step = { ...common, kind: "tasks", agent: agent("agent", "executor"), reports: [REPORT.execution] };
      break;
    case "check": {
      reject("gate", "a check step has no gate: it passes or sends the work back");
      if ((def.agent === undefined) === (def.run === undefined))
        problem(
          at,
          "a check step names exactly one of `agent` (an agent writes a report with a boolean `passed`) or `run` (a shell command; exit 0 passes): keep one of them",
        );
      const byAgent = def.agent !== undefined;
      const rework = reworkFields(def, at, problem);
      step = {
        ...common,
        kind: "check",
        ...(byAgent ? { agent: agent("agent") } : def.run !== undefined ? { run: command() } : {}),
        reports: reports(byAgent ? undefined : `steps/${def.id}.json`, true),
        ...rework,
      };
      break;
    }
    case "shell":
      for (const field of ["agent", "gate", "reducer", "rework"] as const)
        reject(field, `a shell step runs its command and takes no ${field}`);
      step = { ...common, kind: "shell", run: command(), reports: reports(`steps/${def.id}.json`, true) };
      break;
  }
  if (def.kind !== "check" && def.max_rounds !== undefined)
    problem(`${at}.max_rounds`, "only a check step with `rework` has max_rounds; take it out of this step");
  if (
    (def.kind === "agent" ||
      def.kind === "choose" ||
      def.kind === "tasks" ||
      (def.kind === "check" && def.agent !== undefined)) &&
    (def.retries !== undefined || def.timeout !== undefined)
  ) {
    problem(
      `${at}.${def.retries !== undefined ? "retries" : "timeout"}`,
      "retries and timeout apply to the commands of shell and check steps; an agent's attempts are counted by dotagent (tasks: max_attempts); take it out of this step",
    );
  }
  return failed ? undefined : step;
}

/** A rework's own fields (where it goes back to is checked against the other steps, checkSteps). */
function reworkFields(def: StepDef, at: string, problem: Problem): { rework?: string; max_rounds?: number } {
  if (def.rework === undefined) return {};
  if (def.max_rounds === undefined)
    problem(
      `${at}.max_rounds`,
      `a rework cycle needs max_rounds (how many times ${def.id} may send the work back before the workflow fails), e.g. 3`,
    );
  return { rework: def.rework, ...(def.max_rounds === undefined ? {} : { max_rounds: def.max_rounds }) };
}

function checkDesigns(def: StepDef, at: string, problem: Problem): readonly { name: string; angle: string }[] {
  if (def.designs === undefined) return DEFAULT_DESIGNS;
  if (def.designs.length === 0)
    problem(
      `${at}.designs`,
      "a choose step asks for at least one design: list one, or remove `designs` for the default two",
    );
  const names = new Set<string>();
  def.designs.forEach((d, i) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(d.name))
      problem(
        `${at}.designs[${i}].name`,
        `${JSON.stringify(d.name.slice(0, 50))} is not a design name: letters, digits, '_' or '-'; rename it`,
      );
    if (names.has(d.name))
      problem(`${at}.designs[${i}].name`, `design ${d.name} is listed twice; rename or remove one`);
    names.add(d.name);
  });
  return def.designs;
}

function checkCondition(when: StepCondition, at: string, problem: Problem): StepCondition {
  const tests = (["equals", "not_equals", "matches"] as const).filter((k) => when[k] !== undefined);
  if (tests.length !== 1) problem(at, "a condition has exactly one of equals, not_equals or matches: keep one");
  if (when.report !== "request" && when.field === undefined)
    problem(`${at}.field`, 'name the report\'s field to test, e.g. "size" or "scope.kind"');
  if (when.matches !== undefined) {
    if (when.matches.length > 200) problem(`${at}.matches`, "the pattern is longer than 200 characters; shorten it");
    else {
      let valid = true;
      try {
        // Only parsed, never run: JavaScript's matcher backtracks (linear-pattern.ts's header).
        new RegExp(when.matches, "u");
      } catch {
        valid = false;
        problem(`${at}.matches`, `${JSON.stringify(when.matches)} is not a regular expression; fix its syntax`);
      }
      const compiled = valid ? compilePattern(when.matches) : undefined;
      if (compiled !== undefined && !compiled.ok)
        problem(
          `${at}.matches`,
          `${JSON.stringify(when.matches)} cannot be used: ${compiled.reason} (SPEC §20, Patterns)`,
        );
    }
  }
  return when.report === "request" ? when : { ...when, report: reportPath(when.report) ?? when.report };
}

/** A report name under memory/reports/ as a project-relative path, or undefined when it would leave. */
export function reportPath(name: string): string | undefined {
  const stripped = name.startsWith(`${REPORTS_DIR}/`) ? name.slice(REPORTS_DIR.length + 1) : name;
  if (!REPORT_NAME_PATTERN.test(stripped)) return undefined;
  const normal = posix.normalize(stripped);
  if (normal !== stripped || normal.split("/").some((part) => part === ".." || part === ".")) return undefined;
  return `${REPORTS_DIR}/${normal}`;
}

/** Steps as pinned in phase.json (`workflow.steps`): the resolved steps with report names, defaults filled. */
export function pinnedSteps(flow: Flow): StepDef[] {
  const name = (p: string) => p.slice(REPORTS_DIR.length + 1);
  return flow.steps.map((s) => {
    switch (s.kind) {
      case "choose": {
        const { said: _said, ...rest } = s;
        return { ...rest, reports: undefined, designs: s.designs } as StepDef;
      }
      case "tasks":
        return {
          id: s.id,
          kind: s.kind,
          agent: s.agent,
          ...(s.title ? { title: s.title } : {}),
          ...(s.when ? { when: s.when } : {}),
        };
      default: {
        // A built-in's own fields (named_gate, said) are not written into phase.json (its format and hash stay): flow-of.ts restores them.
        const {
          reports,
          named_gate: _named,
          said: _said,
          ...rest
        } = s as Exclude<Step, { kind: "choose" | "tasks" }> & {
          named_gate?: unknown;
        };
        return { ...rest, report: reports.length === 1 ? name(reports[0]!) : reports.map(name) } as StepDef;
      }
    }
  });
}
