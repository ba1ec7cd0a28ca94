import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { describeDefProblem, problemsByFile, workflowCatalog } from "../../store/workflow-files.js";
import { workflowHash } from "../../core/flow-of.js";
import { stepAgents, type Flow, type Step } from "../../core/flow.js";
import { escapeControls } from "../../core/words.js";
import type { Command } from "../context.js";
import { howToStart, personReading } from "../person-next.js";
import { outputWidth, table } from "../table.js";
import { nearest, subcommandGuess } from "../../core/suggest.js";

/** One step for people: `VERIFY check npm test → rework IMPLEMENT (max 2)`. */
function describeStep(step: Step): string {
  const parts = [step.id, step.kind];
  if (step.kind === "shell" || (step.kind === "check" && step.run !== undefined)) parts.push(`\`${step.run}\``);
  else parts.push(stepAgents(step).join(" + "));
  if (step.kind === "agent" && step.gate) parts.push("(person approves)");
  if (step.kind === "choose") parts.push("(person picks)");
  if (step.kind === "check" && step.rework) parts.push(`→ rework ${step.rework} (max ${step.max_rounds})`);
  if (step.when) parts.push("(when …)");
  return escapeControls(parts.join(" "));
}

function stepsJson(flow: Flow) {
  return flow.steps.map((s) => ({
    id: s.id,
    kind: s.kind,
    agents: stepAgents(s),
    ...(s.kind === "shell" || s.kind === "check" ? { run: s.run ?? null } : {}),
    reports: [...s.reports],
    gate: s.kind === "choose" ? "choose" : s.kind === "agent" ? (s.gate ?? null) : null,
    ...(s.kind === "check" && s.rework ? { rework: s.rework, max_rounds: s.max_rounds } : {}),
    ...(s.when ? { when: s.when } : {}),
  }));
}

export const command: Command = {
  summary: "list the workflows (built-in and .dotagent/workflows/) | workflows show NAME | workflows validate [NAME…]",
  usage: "dotagent workflows [list | show NAME | validate [NAME…]] [--json]",
  options: {},
  examples: [
    "dotagent workflows                    the built-in and the project's workflows",
    "dotagent workflows show fix           its steps, resolved",
    "dotagent workflows validate review    exit 3 with the file, JSON path and fix of each problem",
  ],
  async run(context) {
    const [action = "list", ...names] = context.args;
    const catalog = await workflowCatalog(context.paths.root);
    if (action === "list") {
      if (names.length > 0) throw usageError(`unexpected argument "${names[0]}"`);
      const rows = catalog.all.map((d) => {
        const resolved = catalog.resolve(d.name);
        return resolved.ok
          ? {
              name: d.name,
              source: d.source,
              ok: true,
              description: resolved.flow.description,
              steps: resolved.flow.steps.map((s) => s.id),
              problem: null,
              problem_details: [],
            }
          : {
              name: d.name,
              source: d.source,
              ok: false,
              description: d.def.description ?? "",
              steps: [],
              problem: describeDefProblem(resolved.problems[0]!),
              problem_details: resolved.problems,
            };
      });
      // Files that could not be read at all (not JSON, unknown keys, a link): no workflow row, one entry per file.
      const unread = problemsByFile(catalog.problems);
      context.out.result(
        {
          workflows: rows,
          problems: unread.map((f) => describeDefProblem(f.problems[0]!)),
          problem_details: unread.flatMap((f) => f.problems),
        },
        () => {
          const good = rows.filter((r) => r.ok);
          const lines = table(
            ["NAME", "FROM", "STEPS"],
            good.map((r) => [r.name, r.source, r.steps.join(" → ")].map(escapeControls)),
            outputWidth(),
          );
          // One line per bad file, its first problem: the list is still the answer, and the person is told what is broken.
          const bad = [
            ...rows.flatMap((r) => (r.problem === null ? [] : [r.problem])),
            ...unread.map((f) => describeDefProblem(f.problems[0]!)),
          ];
          const told =
            bad.length === 0
              ? []
              : [
                  "",
                  ...bad.map((p) => `invalid: ${escapeControls(p)}`),
                  "`dotagent workflows validate` lists every problem.",
                ];
          // A person is told what starts one with its agents; the model and programs keep the commands they run.
          const driver = personReading(context);
          const start =
            driver === null
              ? "dotagent init --workflow NAME --request '…' (in Claude Code: /develop --workflow NAME …)"
              : howToStart(driver, "NAME");
          return [...lines, ...told, "", `Start one: ${start}`];
        },
      );
      // Listed, bad files told: a listing succeeded (validate is the check that fails on them).
      return EXIT.ok;
    }
    if (action === "show") {
      if (names.length !== 1)
        throw usageError("workflows show needs one workflow name; `dotagent workflows` lists them");
      const resolved = catalog.resolve(names[0]!);
      const known = catalog.all.map((d) => d.name);
      const guess = known.includes(names[0]!) ? null : nearest(names[0]!, known);
      if (!resolved.ok)
        throw new DotagentError(
          "workflow_invalid",
          guess === null
            ? describeDefProblem(resolved.problems[0]!)
            : `no workflow named ${JSON.stringify(names[0])} (did you mean \`dotagent workflows show ${guess}\`?); \`dotagent workflows\` lists them`,
          EXIT.invalid,
          { problems: resolved.problems },
        );
      const flow = resolved.flow;
      context.out.result(
        {
          name: flow.name,
          description: flow.description,
          sources: resolved.sources,
          hash: workflowHash(flow),
          steps: stepsJson(flow),
        },
        () => [
          `${flow.name}: ${escapeControls(flow.description)}`,
          ...flow.steps.map((s, i) => `  ${i + 1}. ${describeStep(s)}`),
        ],
      );
      return EXIT.ok;
    }
    if (action === "validate") {
      const targets = names.length > 0 ? names : catalog.all.filter((d) => d.source !== "built-in").map((d) => d.name);
      const results = targets.map((name) => {
        const resolved = catalog.resolve(name);
        return { name, ok: resolved.ok, problems: resolved.ok ? [] : resolved.problems };
      });
      const unread =
        names.length > 0 ? [] : catalog.problems.filter((p) => !targets.some((t) => p.source.endsWith(`/${t}.json`)));
      const ok = results.every((r) => r.ok) && unread.length === 0;
      context.out.result({ ok, workflows: results, problems: unread }, () => [
        // A definition that extends an invalid one repeats its problems: each told once.
        ...new Set([
          ...results.flatMap((r) =>
            r.ok ? [`${r.name}: valid`] : r.problems.map((p) => escapeControls(describeDefProblem(p))),
          ),
          ...unread.map((p) => escapeControls(describeDefProblem(p))),
        ]),
        ...(results.length === 0 && unread.length === 0
          ? ["No workflow definitions in .dotagent/workflows/ (the built-ins are always valid)."]
          : []),
      ]);
      return ok ? EXIT.ok : EXIT.invalid;
    }
    throw usageError(
      `workflows needs list, show or validate, not "${action}"${catalog.all.some((d) => d.name === action) ? ` (did you mean \`dotagent workflows show ${action}\`?)` : subcommandGuess("workflows", action, ["list", "show", "validate"])}; see \`dotagent workflows --help\``,
    );
  },
};
