#!/usr/bin/env node
// The long torture of the LangGraph saver (issue 33; `npm run torture:langgraph` builds first):
// test/torture/langgraph-torture.mjs with big counts against dist/langgraph.mjs, then one table.
// `npm test` runs the same code bounded (test/torture/langgraph.test.ts).
//
//   node scripts/langgraph-torture.mjs [--kills N] [--rounds R] [--seed S]   run, print the table
//   node scripts/langgraph-torture.mjs ... --write    also record docs/figures/langgraph-torture.json
//                                                     and put the table into docs/evidence.md
//   node scripts/langgraph-torture.mjs --table        print the recorded table (what the docs test checks)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { platform, release, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const FIGURES = join(root, "docs/figures/langgraph-torture.json");

/** The table docs/evidence.md quotes, from the recorded figures. */
export function langgraphTable(recorded = JSON.parse(readFileSync(FIGURES, "utf8"))) {
  const { kill, crowd } = recorded;
  const f = (r, key) => r.figures[key] ?? 0;
  const rows = [
    [
      "writer runs (killed right before a disk change)",
      `${f(kill, "runs")} (${f(kill, "kills")})`,
      `${f(crowd, "runs")} (${f(crowd, "kills")})`,
    ],
    [
      "acknowledged puts · putWrites",
      `${f(kill, "acknowledged_puts")} · ${f(kill, "acknowledged_writes")}`,
      `${f(crowd, "acknowledged_puts")} · ${f(crowd, "acknowledged_writes")}`,
    ],
    ["checkpoints listed and read back whole", f(kill, "checkpoints_read"), f(crowd, "checkpoints_read")],
    [
      "acknowledged calls lost · checkpoints unreadable",
      `${f(kill, "lost_updates")} · ${f(kill, "corrupt_after_kill")}`,
      `${f(crowd, "lost_updates")} · ${f(crowd, "corrupt_after_kill")}`,
    ],
    [
      "writers failing unkilled · temp files or locks left",
      `${f(kill, "next_command_failed")} · ${f(kill, "temp_files_left") + f(kill, "stale_locks_left")}`,
      `${f(crowd, "next_command_failed")} · ${f(crowd, "temp_files_left") + f(crowd, "stale_locks_left")}`,
    ],
  ];
  const landed = {};
  for (const r of [kill, crowd])
    for (const [where, n] of Object.entries(r.landed)) landed[where] = (landed[where] ?? 0) + n;
  const where = Object.entries(landed)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([w, n]) => `${w.replace(/^before /, "")} ${n}`)
    .join(", ");
  return [
    `| \`npm run torture:langgraph\` | one writer, killed | ${crowd.options.processes} writers on one thread |`,
    "|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
    "",
    `Kills landed right before: ${where}. Seed ${recorded.seed}, ${recorded.minutes} min, ${recorded.measured_with}.`,
  ].join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      kills: { type: "string" },
      rounds: { type: "string" },
      seed: { type: "string" },
      write: { type: "boolean" },
      table: { type: "boolean" },
    },
  });
  if (values.table) {
    console.log(langgraphTable());
    process.exit(0);
  }
  const { crowdTorture, killTorture } = await import("../test/torture/langgraph-torture.mjs");
  const saverPath = join(root, "dist/langgraph.mjs");
  const seed = Number(values.seed ?? Date.now() >>> 0);
  const killOptions = { kills: Number(values.kills ?? 300), steps: 12, bytes: 20_000 };
  const crowdOptions = { processes: 8, rounds: Number(values.rounds ?? 20), steps: 8, kills: 2, bytes: 4000 };
  const work = mkdtempSync(join(tmpdir(), "dotagent-lg-torture-"));
  const started = Date.now();
  let kill;
  let crowd;
  try {
    kill = await killTorture({ saverPath, dir: join(work, "kill"), seed, ...killOptions });
    crowd = await crowdTorture({ saverPath, dir: join(work, "crowd"), seed: seed + 1, ...crowdOptions });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const recorded = {
    measured_with: `Node.js ${process.version}, ${platform()} ${release()}`,
    seed,
    minutes: Number(((Date.now() - started) / 60_000).toFixed(1)),
    kill: { options: killOptions, figures: kill.figures, landed: kill.landed },
    crowd: { options: crowdOptions, figures: crowd.figures, landed: crowd.landed },
  };
  const table = langgraphTable(recorded);
  console.log(table);
  const violations = [...kill.violations, ...crowd.violations];
  for (const v of violations) console.error(`violation: ${v}`);
  if (values.write) {
    writeFileSync(FIGURES, `${JSON.stringify(recorded, null, 2)}\n`);
    const evidence = join(root, "docs/evidence.md");
    const text = readFileSync(evidence, "utf8");
    const block = /<!-- langgraph-torture -->\n(?:[\s\S]*?\n)?<!-- \/langgraph-torture -->/;
    if (!block.test(text)) throw new Error("docs/evidence.md has no <!-- langgraph-torture --> block");
    writeFileSync(evidence, text.replace(block, `<!-- langgraph-torture -->\n${table}\n<!-- /langgraph-torture -->`));
    console.log(`\nrecorded in ${FIGURES} and docs/evidence.md`);
  }
  process.exit(violations.length === 0 ? 0 : 1);
}
