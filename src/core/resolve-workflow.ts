// From definitions to a Flow (SPEC §20): follow `extends`, apply the edits, fill the defaults and
// check every rule the engine relies on. A definition is input a person (or, if it slipped past
// the write guard, an agent) wrote by hand: each problem is a value naming the file, the JSON path
// and the fix; nothing here throws or touches the disk.
import { posix } from "node:path";
import { REPORTS_DIR } from "./paths.js";
import { DEFAULT_DESIGNS, REPORT, type Flow, type Step, type StepCondition } from "./flow.js";
import { compilePattern } from "./linear-pattern.js";
import { controlCharacterIn } from "./words.js";
import type { SourcedDef, StepDef, WorkflowDef } from "./workflow-defs.js";

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
const RESERVED_REPORTS = [/^designs\//, /^tasks\//, /^unowned\//, /^roundtable\.json$/, /^final_design\.json$/, /^plan(?:-\d+)?\.json$/, /\.rework-\d+\.json$/];

export interface DefProblem {
  /** "built-in" or the project-relative file the problem is in. */
  readonly source: string;
  /** JSON path inside it, like `steps[2].rework`; "" for the whole file. */
  readonly path: string;
  readonly message: string;
}

export type Resolved = { ok: true; flow: Flow; sources: string[] } | { ok: false; problems: DefProblem[] };

export interface ResolveOptions {
  /** Agent names that exist (built-in agents and the project's agent files); undefined: not checked. */
  readonly knownAgents?: ReadonlySet<string> | undefined;
}

/** Resolves the definition `name`, looked up with `lookup` (built-ins and the project's files). */
export function resolveWorkflow(name: string, lookup: (name: string) => SourcedDef | undefined, options: ResolveOptions = {}): Resolved {
  const problems: DefProblem[] = [];
  const chain: SourcedDef[] = [];
  let current = lookup(name);
  if (current === undefined) return fail("", "", `no workflow named ${JSON.stringify(name)}; \`dotagent workflows\` lists them`);
  while (current !== undefined) {
    if (chain.some((c) => c.name === current!.name)) return fail(current.source, "extends", `extends form a cycle: ${[...chain.map((c) => c.name), current.name].join(" → ")}; remove one extends`);
    chain.push(current);
    if (chain.length > MAX_EXTENDS_DEPTH) return fail(current.source, "extends", `more than ${MAX_EXTENDS_DEPTH} definitions extend each other; flatten the chain`);
    const parent: string | undefined = current.def.extends;
    if (parent === undefined) break;
    const next = lookup(parent);
    if (next === undefined) return fail(current.source, "extends", `extends ${JSON.stringify(parent)}, which is no workflow; \`dotagent workflows\` lists them`);
    current = next;
  }
  for (const { source, def } of chain) refuseControls(source, def, problems);
  if (problems.length > 0) return { ok: false, problems };
  // Apply from the base down: each extending definition edits its parent's steps.
  let steps: StepDef[] = [];
  for (const { source, def } of [...chain].reverse()) {
    const edited = def.extends === undefined ? fullSteps(source, def, problems) : applyEdits(source, def, steps, problems);
    if (edited === undefined) return { ok: false, problems };
    steps = edited;
  }
  const top = chain[0]!;
  const flow = checkSteps(top.source, name, top.def.description ?? chain.find((c) => c.def.description)?.def.description ?? "", steps, options, problems);
  if (flow === undefined || problems.length > 0) return { ok: false, problems };
  return { ok: true, flow, sources: chain.map((c) => c.source) };

  function fail(source: string, path: string, message: string): Resolved {
    return { ok: false, problems: [...problems, { source, path, message }] };
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
      if (found !== null) problems.push({ source, path, message: `holds a control character (${found}): no text of a definition may (tab and line feed aside), as it could rewrite what a terminal shows or cut a command short; write the text without it` });
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) walk(item, path === "" ? key : `${path}.${key}`);
  };
  walk(def, "");
}

function fullSteps(source: string, def: WorkflowDef, problems: DefProblem[]): StepDef[] | undefined {
  for (const key of ["insert", "replace", "remove"] as const) {
    if (def[key] !== undefined) problems.push({ source, path: key, message: `only a definition that extends another may ${key} steps; add \`"extends": "develop"\` or write the steps out` });
  }
  if (def.steps === undefined || def.steps.length === 0) {
    problems.push({ source, path: "steps", message: "a workflow needs steps (or `extends` another workflow)" });
    return undefined;
  }
  return problems.length > 0 ? undefined : [...def.steps];
}

function applyEdits(source: string, def: WorkflowDef, base: readonly StepDef[], problems: DefProblem[]): StepDef[] | undefined {
  if (def.steps !== undefined) {
    problems.push({ source, path: "steps", message: "a definition that extends another edits its steps with insert, replace and remove; it cannot list steps too" });
    return undefined;
  }
  let steps = [...base];
  const has = (id: string) => steps.some((s) => s.id === id);
  (def.remove ?? []).forEach((id, i) => {
    if (!has(id)) problems.push({ source, path: `remove[${i}]`, message: `no step ${JSON.stringify(id)} to remove; the steps are ${steps.map((s) => s.id).join(", ")}` });
    steps = steps.filter((s) => s.id !== id);
  });
  (def.replace ?? []).forEach((step, i) => {
    const at = steps.findIndex((s) => s.id === step.id);
    if (at < 0) problems.push({ source, path: `replace[${i}].id`, message: `no step ${JSON.stringify(step.id)} to replace; use insert to add a step` });
    else steps[at] = step;
  });
  (def.insert ?? []).forEach((insert, i) => {
    const anchor = insert.after ?? insert.before;
    if ((insert.after === undefined) === (insert.before === undefined)) {
      problems.push({ source, path: `insert[${i}]`, message: "name exactly one of `after` or `before`: the step id to insert next to" });
      return;
    }
    const at = steps.findIndex((s) => s.id === anchor);
    if (at < 0) {
      problems.push({ source, path: `insert[${i}].${insert.after !== undefined ? "after" : "before"}`, message: `no step ${JSON.stringify(anchor)}; the steps are ${steps.map((s) => s.id).join(", ")}` });
      return;
    }
    steps.splice(insert.after !== undefined ? at + 1 : at, 0, ...insert.steps);
  });
  return problems.length > 0 ? undefined : steps;
}

/** Checks the resolved steps and fills their defaults; problems are pushed, the Flow returned when there are none. */
function checkSteps(source: string, name: string, description: string, defs: readonly StepDef[], options: ResolveOptions, problems: DefProblem[]): Flow | undefined {
  const problem = (path: string, message: string) => problems.push({ source, path, message });
  if (!WORKFLOW_NAME_PATTERN.test(name)) problem("", `${JSON.stringify(name.slice(0, 50))} is not a workflow name: lowercase letters, digits and '-', starting with a letter, at most 40`);
  if (defs.length === 0) problem("steps", "the workflow has no steps left");
  if (defs.length > MAX_STEPS) {
    problem("steps", `${defs.length} steps: at most ${MAX_STEPS}`);
    return undefined;
  }
  const seen = new Map<string, number>();
  const reportOwner = new Map<string, string>();
  const steps: Step[] = [];
  defs.forEach((def, i) => {
    const at = `steps[${i}]`;
    if (!STEP_ID_PATTERN.test(def.id)) {
      problem(`${at}.id`, `${JSON.stringify(def.id.slice(0, 50))} is not a step id: a letter, then letters, digits, '_' or '-', at most 40`);
      return;
    }
    const first = seen.get(def.id);
    if (first !== undefined) problem(`${at}.id`, `${def.id} is also steps[${first}].id; step ids must be unique`);
    seen.set(def.id, i);
    const step = checkStep(def, at, i, defs, problem, options);
    if (step === undefined) return;
    for (const report of step.kind === "choose" || step.kind === "tasks" ? [] : step.reports) {
      const other = reportOwner.get(report);
      if (other !== undefined) problem(`${at}.report`, `${report.replace(`${REPORTS_DIR}/`, "")} is also step ${other}'s report; each step writes its own`);
      reportOwner.set(report, def.id);
    }
    steps.push(step);
  });
  for (const kind of ["choose", "tasks"] as const) {
    const of = defs.map((d, i) => [d, i] as const).filter(([d]) => d.kind === kind);
    if (of.length > 1) problem(`steps[${of[1]![1]}].kind`, `only one ${kind} step per workflow (steps ${of.map(([d]) => d.id).join(" and ")}): its reports have fixed places`);
  }
  // A condition reads a report some earlier step writes (or the request).
  defs.forEach((def, i) => {
    const report = def.when?.report;
    if (report === undefined || report === "request") return;
    const path = reportPath(report);
    const writer = steps.findIndex((s) => s.reports.includes(path ?? "") || (s.kind === "choose" && path === REPORT.finalDesign));
    if (writer < 0 || writer >= i) problem(`steps[${i}].when.report`, `${report} is not a report of an earlier step; a condition reads what an earlier step wrote, or "request"`);
  });
  return problems.length > 0 ? undefined : { name, description, steps };
}

type Problem = (path: string, message: string) => void;

function checkStep(def: StepDef, at: string, index: number, all: readonly StepDef[], report: Problem, options: ResolveOptions): Step | undefined {
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
  };
  const agent = (field: "agent" | "reducer", fallback?: string): string => {
    const value = def[field] ?? fallback;
    if (value === undefined) {
      problem(`${at}.${field}`, `a ${def.kind} step needs ${field === "agent" ? "an agent" : "a reducer agent"} (the name of its agent file, e.g. ${field === "agent" ? "\"pm\"" : "\"roundtable\""})`);
      return "";
    }
    if (!AGENT_NAME_PATTERN.test(value)) problem(`${at}.${field}`, `${JSON.stringify(value.slice(0, 50))} is not an agent name: lowercase letters, digits and '-'`);
    else if (options.knownAgents !== undefined && !options.knownAgents.has(value)) problem(`${at}.${field}`, `unknown agent ${JSON.stringify(value)}: write .claude/agents/${value}.md (or name a built-in agent)`);
    return value;
  };
  const reports = (fallback: string | undefined, json: boolean): string[] => {
    const given = def.report === undefined ? (fallback === undefined ? [] : [fallback]) : typeof def.report === "string" ? [def.report] : [...def.report];
    if (given.length === 0) problem(`${at}.report`, `a ${def.kind} step needs a report: the file under memory/reports/ its agent writes, e.g. "${def.id.toLowerCase()}.json"`);
    return given.flatMap((name, j) => {
      const path = reportPath(name);
      const where = def.report === undefined || typeof def.report === "string" ? `${at}.report` : `${at}.report[${j}]`;
      if (path === undefined) {
        problem(where, `${JSON.stringify(name.slice(0, 80))} is not a report under memory/reports/: a relative name like "review.json" or "security/review.md", no '..'`);
        return [];
      }
      const rel = path.slice(REPORTS_DIR.length + 1);
      if (RESERVED_REPORTS.some((r) => r.test(rel))) problem(where, `${rel} is dotagent's own (designs, tasks, plans, rework copies); name the report something else`);
      if (json && !rel.endsWith(".json")) problem(where, `${rel}: a ${def.kind} step's report is JSON (it holds a boolean \`passed\`)`);
      return [path];
    });
  };
  const command = (): string => {
    const run = def.run ?? "";
    if (run.trim() === "") problem(`${at}.run`, `a ${def.kind} step needs the shell command to run, e.g. "npm test"`);
    else if (run.length > MAX_COMMAND_LENGTH) problem(`${at}.run`, `the command is ${run.length} characters: at most ${MAX_COMMAND_LENGTH}; put it in a script and run that`);
    return run;
  };
  const reject = (field: keyof StepDef, why: string) => {
    if (def[field] !== undefined) problem(`${at}.${field}`, why);
  };
  let step: Step | undefined;
  switch (def.kind) {
    case "agent":
      reject("run", "an agent step runs an agent, not a command; use a shell step");
      reject("reducer", "only a choose step has a reducer");
      reject("rework", "only a check step sends work back");
      if (def.gate !== undefined && def.gate !== "approve") problem(`${at}.gate`, `an agent step's gate is "approve" (or none)`);
      step = { ...common, kind: "agent", agent: agent("agent"), reports: reports(undefined, false), ...(def.gate === "approve" ? { gate: "approve" as const } : {}) };
      break;
    case "choose":
      reject("run", "a choose step runs agents, not a command");
      reject("report", "a choose step's reports are fixed: designs/<name>.json, roundtable.json and final_design.json");
      if (def.gate !== undefined && def.gate !== "choose") problem(`${at}.gate`, `a choose step's gate is "choose": the person picks`);
      step = { ...common, kind: "choose", agent: agent("agent"), reducer: agent("reducer"), designs: checkDesigns(def, at, problem), gate: "choose", reports: [REPORT.finalDesign] };
      break;
    case "tasks":
      for (const field of ["run", "report", "gate", "reducer", "rework"] as const) reject(field, `a tasks step takes no ${field}: its plan is the design's tasks, each run by its agent in a worktree`);
      step = { ...common, kind: "tasks", agent: agent("agent", "executor"), reports: [REPORT.execution] };
      break;
    case "check": {
      reject("gate", "a check step has no gate: it passes or sends the work back");
      if ((def.agent === undefined) === (def.run === undefined)) problem(at, "a check step names exactly one of `agent` (an agent writes a report with a boolean `passed`) or `run` (a shell command; exit 0 passes)");
      const byAgent = def.agent !== undefined;
      const rework = checkRework(def, at, index, all, problem);
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
      for (const field of ["agent", "gate", "reducer", "rework"] as const) reject(field, `a shell step runs its command and takes no ${field}`);
      step = { ...common, kind: "shell", run: command(), reports: reports(`steps/${def.id}.json`, true) };
      break;
  }
  if (def.kind !== "check" && def.max_rounds !== undefined) problem(`${at}.max_rounds`, "only a check step with `rework` has max_rounds");
  if ((def.kind === "agent" || def.kind === "choose" || def.kind === "tasks" || (def.kind === "check" && def.agent !== undefined)) && (def.retries !== undefined || def.timeout !== undefined)) {
    problem(`${at}.${def.retries !== undefined ? "retries" : "timeout"}`, "retries and timeout apply to the commands of shell and check steps; an agent's attempts are counted by dotagent (tasks: max_attempts)");
  }
  return failed ? undefined : step;
}

function checkRework(def: StepDef, at: string, index: number, all: readonly StepDef[], problem: Problem): { rework?: string; max_rounds?: number } {
  if (def.rework === undefined) return {};
  const target = all.findIndex((s) => s.id === def.rework);
  if (target < 0) problem(`${at}.rework`, `no step ${JSON.stringify(def.rework)} to send the work back to`);
  else if (target >= index) problem(`${at}.rework`, `${def.rework} is not before ${def.id}: rework goes back to an earlier step`);
  else if (all[target]!.kind !== "tasks" && all[target]!.kind !== "agent") problem(`${at}.rework`, `${def.rework} is a ${all[target]!.kind} step: rework goes back to a tasks or an agent step`);
  if (def.max_rounds === undefined) problem(`${at}.max_rounds`, `a rework cycle needs max_rounds (how many times ${def.id} may send the work back before the workflow fails), e.g. 3`);
  return { rework: def.rework, ...(def.max_rounds === undefined ? {} : { max_rounds: def.max_rounds }) };
}

function checkDesigns(def: StepDef, at: string, problem: Problem): readonly { name: string; angle: string }[] {
  if (def.designs === undefined) return DEFAULT_DESIGNS;
  if (def.designs.length === 0) problem(`${at}.designs`, "a choose step asks for at least one design");
  const names = new Set<string>();
  def.designs.forEach((d, i) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(d.name)) problem(`${at}.designs[${i}].name`, `${JSON.stringify(d.name.slice(0, 50))} is not a design name: letters, digits, '_' or '-'`);
    if (names.has(d.name)) problem(`${at}.designs[${i}].name`, `design ${d.name} is listed twice`);
    names.add(d.name);
  });
  return def.designs;
}

function checkCondition(when: StepCondition, at: string, problem: Problem): StepCondition {
  const tests = (["equals", "not_equals", "matches"] as const).filter((k) => when[k] !== undefined);
  if (tests.length !== 1) problem(at, "a condition has exactly one of equals, not_equals or matches");
  if (when.report !== "request" && when.field === undefined) problem(`${at}.field`, "name the report's field to test, e.g. \"size\" or \"scope.kind\"");
  if (when.matches !== undefined) {
    if (when.matches.length > 200) problem(`${at}.matches`, "the pattern is longer than 200 characters");
    else {
      let valid = true;
      try {
        // Only parsed, never run: JavaScript's matcher backtracks (linear-pattern.ts's header).
        new RegExp(when.matches, "u");
      } catch {
        valid = false;
        problem(`${at}.matches`, `${JSON.stringify(when.matches)} is not a regular expression`);
      }
      const compiled = valid ? compilePattern(when.matches) : undefined;
      if (compiled !== undefined && !compiled.ok) problem(`${at}.matches`, `${JSON.stringify(when.matches)} cannot be used: ${compiled.reason} (SPEC §20, Patterns)`);
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
      case "choose":
        return { ...s, reports: undefined, designs: s.designs } as StepDef;
      case "tasks":
        return { id: s.id, kind: s.kind, agent: s.agent, ...(s.title ? { title: s.title } : {}), ...(s.when ? { when: s.when } : {}) };
      default: {
        const { reports, ...rest } = s;
        return { ...rest, report: reports.length === 1 ? name(reports[0]!) : reports.map(name) } as StepDef;
      }
    }
  });
}
