#!/usr/bin/env node
// What a clean /develop workflow costs in the real Claude Code (issue 22), and how it survives a
// kill -9 at every boundary, from the figures the journeys record (docs/figures/journey-*.json:
// DOTAGENT_RECORD_FIGURES=1 with `npm test`'s journey files; crash-matrix-*.json: the same with
// DOTAGENT_JOURNEY_ALL=1, which `npm run journey` sets), as the tables docs/evidence.md quotes.
//
//   node scripts/journey-figures.mjs            print the tables
//   node scripts/journey-figures.mjs --write    put them into docs/evidence.md (between their markers)
import { existsSync } from "node:fs";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const read = (name) => JSON.parse(readFileSync(join(root, "docs/figures", name), "utf8"));

export function journeyTable() {
  // Before the hooks: the same journey on the tree before them (docs/figures/journey-print-before.json).
  const before = read("journey-print-before.json");
  const BEFORE = before.figures;
  const print = read("journey-print.json");
  const terminal = read("journey-terminal.json");
  const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
  const phases = (f) =>
    Object.entries(f.helper_calls_by_phase)
      .map(([p, n]) => `${p} ${n}`)
      .join(", ") || "none";
  const about = (f) =>
    f.monitor_requests === 0
      ? "0"
      : `${f.monitor_requests} (${Object.entries(f.monitor_about)
          .map(([k, n]) => `${k} ${n}`)
          .join(", ")})`;
  const rows = [
    ["main-agent model requests", BEFORE.main_requests, print.figures.main_requests, terminal.figures.main_requests],
    ["bytes the main agent sent", mb(BEFORE.main_bytes), mb(print.figures.main_bytes), mb(terminal.figures.main_bytes)],
    ["sub-agent model requests", BEFORE.sub_requests, print.figures.sub_requests, terminal.figures.sub_requests],
    [
      "helper calls by the model",
      `${BEFORE.helper_calls} (${phases(BEFORE)})`,
      `${print.figures.helper_calls} (${phases(print.figures)})`,
      `${terminal.figures.helper_calls} (${phases(terminal.figures)})`,
    ],
    ["auto mode's monitor asked", "n/a", about(print.figures), about(terminal.figures)],
  ];
  return [
    `| clean 3-task workflow | before (print mode) | print mode (\`claude -p\`) | interactive terminal |`,
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
    "",
    `Measured with ${print.measured_with} (print) and ${terminal.measured_with} (terminal); before: ${before.measured_with}.`,
  ].join("\n");
}

/** The README's sentence: the turns of a clean workflow, print mode next to the terminal. */
export function readmeLine() {
  const before = read("journey-print-before.json").figures;
  const print = read("journey-print.json").figures;
  const terminal = read("journey-terminal.json").figures;
  const ours = (f) => (f.monitor_about.helper ?? 0) + (f.monitor_about.spawn ?? 0);
  return [
    `A clean 3-task workflow: **${print.main_requests} main-agent model requests in print mode, ${terminal.main_requests} in the terminal** (${before.main_requests}`,
    `before the hooks), ${print.helper_calls} helper calls by the model (${before.helper_calls} before), ${ours(terminal)} monitor checks of dotagent's calls ([figures](docs/evidence.md#model-turns-per-workflow)).`,
  ].join("\n");
}

/** The crash matrices: print mode (every boundary of the main loop, once inside each sub-agent) and the terminal's background batch. */
export function matrixTables() {
  const out = [];
  if (existsSync(join(root, "docs/figures/crash-matrix-print.json"))) {
    const m = read("crash-matrix-print.json");
    const yes = (b) => (b ? "yes" : "NO");
    const sum = (f) => m.rows.reduce((n, r) => n + f(r), 0);
    out.push(
      `Print mode: ${m.rows.length} kill points, ${m.minutes} min (${m.measured_with}).`,
      "",
      "| point | killed in | then | recovered | re-runs | forbidden re-runs | denials | helper failures | briefed |",
      "|---|---|---|---|---|---|---|---|---|",
      ...m.rows.map(
        (r) =>
          `| ${r.point} | ${r.where} | ${r.then} | ${yes(r.recovered)} | ${r.reruns} | ${r.forbidden.length} | ${r.denials}${r.gateHeld ? ` (+${r.gateHeld} at the gate: the reply died with the kill)` : ""} | ${r.helperFailures.length} | ${yes(r.briefed)} |`,
      ),
      `| **${m.rows.length} points** | | | **${sum((r) => (r.recovered ? 1 : 0))}** | **${sum((r) => r.reruns)}** | **${sum((r) => r.forbidden.length)}** | **${sum((r) => r.denials)}** | **${sum((r) => r.helperFailures.length)}** | **${sum((r) => (r.briefed ? 1 : 0))}** |`,
    );
  }
  if (existsSync(join(root, "docs/figures/crash-matrix-terminal.json"))) {
    const m = read("crash-matrix-terminal.json");
    out.push(
      "",
      `Interactive terminal, three tasks in one background batch (1 s, 4 s, 8 s of work), the client killed, then \`claude -r\` and "continue": ${m.rows.length} kill points, ${m.minutes} min (${m.measured_with}).`,
      "",
      "| killed when | tasks complete at the kill | executor spawns (3 clean) | complete tasks run again | recovered |",
      "|---|---|---|---|---|",
      ...m.rows.map(
        (r) =>
          `| ${r.point} | ${r.completed_at_kill.join(", ") || "none"} | ${r.executors} | ${r.forbidden.length} | ${r.recovered ? "yes" : "NO"} |`,
      ),
    );
  }
  return out.join("\n");
}

/**
 * The misbehaving model (misbehaving-journey.test.ts, and the same policy in Copilot CLI and Codex
 * CLI: test/copilot/, test/codex/): each deviation, what Claude Code's model was told, whether it
 * ended safe in each client.
 */
const MISBEHAVING = [
  ["print", "misbehaving-print.json", "Print mode", "print mode"],
  ["terminal", "misbehaving-terminal.json", "Interactive terminal", "terminal"],
  ["copilot", "misbehaving-copilot.json", "Copilot CLI, print mode", "Copilot CLI"],
  ["codex", "misbehaving-codex.json", "Codex CLI, `codex exec`", "Codex CLI"],
];

export function misbehavingTable() {
  const found = MISBEHAVING.filter(([, f]) => existsSync(join(root, "docs/figures", f)));
  const modes = found.map(([m, f]) => [m, read(f)]);
  const label = (mode, long) => MISBEHAVING.find(([m]) => m === mode)[long ? 2 : 3];
  if (modes.length === 0) return "(not recorded yet: `DOTAGENT_RECORD_FIGURES=1 npm run journey`)";
  const names = [...new Set(modes.flatMap(([, m]) => m.rows.map((r) => r.deviation)))];
  const cell = (m, name) => {
    const r = m.rows.find((x) => x.deviation === name);
    return r === undefined ? "—" : `${r.safe ? "safe" : "**NOT SAFE**"} (${r.seconds} s)`;
  };
  // The line as the model read it, without the JSON around it; a different first word per client said as such.
  const clean = (t) =>
    (t ?? "")
      .replace(/"[,}].*$/, "")
      .replace(/\/tmp\/[\w.-]+\/project\//g, "<project>/")
      .replace(/\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b/g, "<session>");
  const told = (name) => {
    // Claude Code's words (the other clients get the same reasons in their own wrapping).
    const lines = modes
      .filter(([mode]) => mode === "print" || mode === "terminal")
      .map(([mode, m]) => [mode, clean(m.rows.find((x) => x.deviation === name)?.told)])
      .filter(([, t]) => t !== "");
    const differ = lines.length > 1 && lines[0][1].slice(0, 40) !== lines[1][1].slice(0, 40);
    return differ
      ? lines.map(([mode, t]) => `${mode === "print" ? "print" : "terminal"}: ${t}`).join("<br>")
      : (lines[0]?.[1] ?? "");
  };
  const safe = (m) => m.rows.filter((r) => r.safe).length;
  // The cases run one after another: their seconds add up to the matrix's time.
  const minutes = (m) => (m.rows.reduce((n, r) => n + r.seconds, 0) / 60).toFixed(1);
  return [
    `${modes.map(([mode, m]) => `${label(mode, true)}: ${safe(m)} of ${m.rows.length} ended safe in ${minutes(m)} min (${m.measured_with})`).join("; ")}.`,
    "",
    `| deviation | what the model was told (first words) | ${modes.map(([mode]) => label(mode, false)).join(" | ")} |`,
    `|---|---|${modes.map(() => "---").join("|")}|`,
    ...names.map(
      (n) => `| \`${n}\` | ${told(n).replaceAll("|", "\\|")} | ${modes.map(([, m]) => cell(m, n)).join(" | ")} |`,
    ),
    ...(modes.some(([, m]) => names.some((n) => !m.rows.some((r) => r.deviation === n)))
      ? [
          "",
          "— : not in that client's matrix: `hand_edit` (the person's edit in their own shell, not the model's) runs in Claude Code only, and test/codex/misbehaving-journey.test.ts says why Codex leaves out two.",
        ]
      : []),
  ].join("\n");
}

/** IMPLEMENTATION's wall time for independent tasks at max_parallel 1 and 3 (parallel-journey.test.ts). */
export function parallelLine() {
  const p = read("parallel.json");
  const [one, three] = [p.figures[1], p.figures[3]];
  return `${p.tasks} independent tasks, executors of ${p.executor_ms / 1000} s each: IMPLEMENTATION (first \`task_started\` to its completion) took **${one.seconds.toFixed(1)} s at max_parallel 1** (batches ${one.batches.join(", ")}) and **${three.seconds.toFixed(1)} s at max_parallel 3** (batches ${three.batches.join(", ")}): ${(one.seconds / three.seconds).toFixed(1)}× (${p.measured_with}).`;
}

/** IMPLEMENTATION's wall time of one batch in worktrees and in the shared checkout (worktree-journey.test.ts). */
export function worktreeTable() {
  const w = read("worktree-wall-time.json");
  const modes = ["shared", "shared, git repository", "worktree", "worktree, the executor commits"];
  const LABELS = {
    shared: "one shared checkout, no git",
    "shared, git repository": "one shared checkout, git repository",
    worktree: "worktrees, dotagent commits",
    "worktree, the executor commits": "worktrees, the executor commits",
  };
  const median = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const cell = (xs) =>
    xs?.length
      ? `${xs.map((x) => x.toFixed(2)).join(" / ")}${xs.length > 1 ? ` (median ${median(xs).toFixed(2)})` : ""}`
      : "—";
  const clients = ["terminal", "print"].filter((c) => w[c]);
  return [
    `${w.tasks} independent tasks in one batch, executors of ${w.executor_ms / 1000} s each: from the first \`task_started\` until VERIFICATION starts (the last landing included), in seconds (${w.measured_with}):`,
    "",
    `| batch | ${clients.map((c) => (c === "terminal" ? "interactive terminal" : "print mode")).join(" | ")} |`,
    `|---|${clients.map(() => "---").join("|")}|`,
    ...modes.map((m) => `| ${LABELS[m]} | ${clients.map((c) => cell(w[c][m])).join(" | ")} |`),
  ].join("\n");
}

/** What the model reads of dotagent over the clean print journey (recorded by journey.test.ts). */
export function readingCostTable() {
  return readFileSync(join(root, "docs/figures/reading-cost.md"), "utf8").trimEnd();
}

function fill(text, name, body) {
  const open = `<!-- ${name} -->`;
  const close = `<!-- /${name} -->`;
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a === -1 || b === -1) throw new Error(`no ${open} block to fill`);
  return `${text.slice(0, a + open.length)}\n${body}\n${text.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--write")) {
    const readme = join(root, "README.md");
    writeFileSync(readme, fill(readFileSync(readme, "utf8"), "turns", readmeLine()));
    const file = join(root, "docs/evidence.md");
    writeFileSync(
      file,
      fill(
        fill(
          fill(
            fill(
              fill(fill(readFileSync(file, "utf8"), "journey-figures", journeyTable()), "crash-matrix", matrixTables()),
              "reading-cost",
              readingCostTable(),
            ),
            "parallel",
            parallelLine(),
          ),
          "worktree-wall-time",
          worktreeTable(),
        ),
        "misbehaving",
        misbehavingTable(),
      ),
    );
  } else
    process.stdout.write(
      `${journeyTable()}\n\n${matrixTables()}\n\n${readingCostTable()}\n\n${parallelLine()}\n\n${worktreeTable()}\n\n${misbehavingTable()}\n`,
    );
}
