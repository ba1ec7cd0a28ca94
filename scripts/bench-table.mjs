#!/usr/bin/env node
// The start-up table of docs/evidence.md, from two recorded `npm run bench -- --json` runs of one
// build in docs/figures/: bench-no-ca-certs.json (the default: the timed processes without the
// NODE_EXTRA_CA_CERTS this machine's image sets, as a user's machine runs them) and
// bench-ca-certs.json (BENCH_KEEP_CA_CERTS=1: with it, as the bench measured before). Each cell is
// a median over the run's rounds and its ratio to that run's `node -e 0`.
//
//   node scripts/bench-table.mjs     print the table (test/docs.test.ts holds docs/evidence.md to it)
//
// To record: `DOTAGENT_CODE_CACHE=<folder> node scripts/bench.mjs --json > docs/figures/bench-no-ca-certs.json`,
// then the same with BENCH_KEEP_CA_CERTS=1 into bench-ca-certs.json.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const FIGURES = new URL("../docs/figures/", import.meta.url);
/** The rows shown: the goals' commands, and a hook that reads no state for contrast. */
const SHOWN = [
  "node -e 0",
  "status --json",
  "resume --json --dry-run",
  "hook session-start",
  "hook pre-tool-use (a helper line)",
  "task complete <id>",
  "validate --json",
];

export function startupTable(
  without = JSON.parse(readFileSync(new URL("bench-no-ca-certs.json", FIGURES), "utf8")),
  withCerts = JSON.parse(readFileSync(new URL("bench-ca-certs.json", FIGURES), "utf8")),
) {
  const cell = (row) => `${row.median_ms.toFixed(1)} ms (${row.ratio.toFixed(2)}×)`;
  const lines = [
    "| command | tasks | without the bundle (a user's start) | with it (`BENCH_KEEP_CA_CERTS=1`) | page faults |",
    "|---|---|---|---|---|",
  ];
  for (const row of without.rows) {
    if (!SHOWN.includes(row.command)) continue;
    const other = withCerts.rows.find((r) => r.command === row.command && r.tasks === row.tasks);
    if (other === undefined) throw new Error(`bench-ca-certs.json has no row for ${row.command} at ${row.tasks}`);
    lines.push(
      `| \`${row.command}\` | ${row.tasks === null ? "-" : row.tasks.toLocaleString("en")} | ${cell(row)} | ${cell(other)} | ${row.minor_faults?.toLocaleString("en") ?? "?"} |`,
    );
  }
  const goals = (run) => run.goals.map((g) => `${g.goal} ${g.status === "PASS" ? "passes" : "fails"}`).join("; ");
  lines.push(
    "",
    `${without.machine.cpu}, ${without.machine.cores} cores, Node ${without.machine.node}; ${without.runs} rounds each. Page faults: the fewest of a run's memory rounds without the bundle (\`/usr/bin/time\`'s minor faults, each fresh 4 kB page the process touched).`,
    `Without the bundle: ${goals(without)}.`,
    `With it: ${goals(withCerts)}.`,
  );
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(startupTable());
