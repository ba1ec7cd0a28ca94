#!/usr/bin/env node
// What a clean /develop workflow costs in the real Claude Code (issue 22), from the figures the
// journeys record (docs/figures/journey-print.json, journey-terminal.json: DOTAGENT_RECORD_FIGURES=1
// with `npm test`'s journey files), as the markdown table docs/evidence.md quotes.
//
//   node scripts/journey-figures.mjs            print the table
//   node scripts/journey-figures.mjs --write    put it into docs/evidence.md (between its markers)
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
  const phases = (f) => Object.entries(f.helper_calls_by_phase).map(([p, n]) => `${p} ${n}`).join(", ") || "none";
  const about = (f) => (f.monitor_requests === 0 ? "0" : `${f.monitor_requests} (${Object.entries(f.monitor_about).map(([k, n]) => `${k} ${n}`).join(", ")})`);
  const rows = [
    ["main-agent model requests", BEFORE.main_requests, print.figures.main_requests, terminal.figures.main_requests],
    ["bytes the main agent sent", mb(BEFORE.main_bytes), mb(print.figures.main_bytes), mb(terminal.figures.main_bytes)],
    ["sub-agent model requests", BEFORE.sub_requests, print.figures.sub_requests, terminal.figures.sub_requests],
    ["helper calls by the model", `${BEFORE.helper_calls} (${phases(BEFORE)})`, `${print.figures.helper_calls} (${phases(print.figures)})`, `${terminal.figures.helper_calls} (${phases(terminal.figures)})`],
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const table = journeyTable();
  if (process.argv.includes("--write")) {
    const file = join(root, "docs/evidence.md");
    const text = readFileSync(file, "utf8");
    const open = "<!-- journey-figures -->";
    const close = "<!-- /journey-figures -->";
    const a = text.indexOf(open);
    const b = text.indexOf(close);
    if (a === -1 || b === -1) throw new Error(`docs/evidence.md has no ${open} block`);
    writeFileSync(file, `${text.slice(0, a + open.length)}\n${table}\n${text.slice(b)}`);
  } else process.stdout.write(`${table}\n`);
}
