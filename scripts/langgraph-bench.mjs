#!/usr/bin/env node
// `npm run bench:langgraph` (issue 44): the LangGraph saver (dist/langgraph.mjs) side by side with
// LangGraph's SqliteSaver in one process, on the same workloads, savers interleaved.
//
// SqliteSaver (@langchain/langgraph-checkpoint-sqlite, on better-sqlite3) is not a dependency: the
// script installs it into a scratch folder of its own under the OS temp folder (once; building
// better-sqlite3 from source takes minutes: npm_config_nodedir points node-gyp at this Node's own
// headers, as no prebuilt binary can be fetched). Its LangGraph peers there are links to this
// repository's copies, so both savers and the graph share one @langchain/langgraph-checkpoint.
// SqliteSaver runs twice: with `PRAGMA synchronous=FULL` (every commit forced to disk, the promise
// DotagentSaver makes) and as shipped (WAL, synchronous=NORMAL: a commit may be lost on power loss).
//
// Workloads (a thread whose state is a window of the last 50 chat messages, ~18 kB serialized):
//   put                  1,000 checkpoints in a chain, each changing the window and a step counter
//   getTuple (newest)    the newest checkpoint of that thread, 300 times
//   list (whole thread)  every checkpoint of that thread, with its values, 5 times
//   putWrites            300 calls of one task's 2 writes against the newest checkpoint
//   getTuple at 200 / 2,000 checkpoints: how the newest read changes as a thread grows
//   StateGraph           a 20-node graph (each node adds a message) invoked 50 times on one thread
// Method: every round runs each workload for every saver, in chunks that alternate between the
// savers (the order rotated each round), each saver on a fresh folder per round; a saver's rate in
// a round is its calls over its summed time; the table shows each rate's median over the rounds,
// and each ratio as the median of the rounds' ratios. So load from other processes falls on all
// savers alike, and the ratios stay steady when the rates move.
//
//   node scripts/langgraph-bench.mjs [--rounds N]      measure, print the table
//   node scripts/langgraph-bench.mjs ... --write       also record docs/figures/langgraph-bench.json
//                                                      and put the table into docs/evidence.md
//   node scripts/langgraph-bench.mjs --table           print the recorded table (what the docs test checks)
// Environment: BENCH_SAVER (another build of the saver to measure, e.g. the one before a change).
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { loadavg, platform, release, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const FIGURES = join(root, "docs/figures/langgraph-bench.json");
const SQLITE_SAVER = "@langchain/langgraph-checkpoint-sqlite@1.0.4";
const SCRATCH = join(tmpdir(), "dotagent-langgraph-bench", SQLITE_SAVER.replace(/[@/]/g, "_"));

const ROWS = [
  ["put", "put", "/s"],
  ["getTuple", "getTuple (newest, 1,000 checkpoints)", "/s"],
  ["list", "list (whole thread)", " tuples/s"],
  ["putWrites", "putWrites", "/s"],
  ["graph", "a 20-step StateGraph, 50 invokes", " invokes/s"],
];

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The table docs/evidence.md quotes, from the recorded figures. */
export function benchTable(recorded = JSON.parse(readFileSync(FIGURES, "utf8"))) {
  const { rates, ratios, flat } = recorded;
  const ratio = (key, other) => `${ratios[other][key].toFixed(2)}×`;
  const lines = [
    "| median of the rounds | DotagentSaver | SqliteSaver, synchronous=FULL | ratio | SqliteSaver as shipped (NORMAL) | ratio |",
    "|---|---|---|---|---|---|",
    ...ROWS.map(([key, label, unit]) => {
      const [d, f, n] = [rates.dotagent[key], rates.sqlite_full[key], rates.sqlite_normal[key]];
      return `| ${label} | ${fmt(d)}${unit} | ${fmt(f)}${unit} | ${ratio(key, "sqlite_full")} | ${fmt(n)}${unit} | ${ratio(key, "sqlite_normal")} |`;
    }),
    `| getTuple (newest) at 200 → 2,000 checkpoints | ${fmt(flat.dotagent[0])} → ${fmt(flat.dotagent[1])}/s | ${fmt(flat.sqlite_full[0])} → ${fmt(flat.sqlite_full[1])}/s | | ${fmt(flat.sqlite_normal[0])} → ${fmt(flat.sqlite_normal[1])}/s | |`,
    "",
    `${recorded.rounds} rounds, savers interleaved in one process; SqliteSaver ${recorded.sqlite_saver} on better-sqlite3 ${recorded.better_sqlite3} (SQLite ${recorded.sqlite}, journal_mode=WAL); ${recorded.minutes} min, load ${recorded.load}, ${recorded.measured_with}.`,
  ];
  return lines.join("\n");
}

// --- SqliteSaver in a scratch folder ------------------------------------------------------------

/** Installs SqliteSaver into the scratch folder unless it is there; its LangGraph peers link to ours. */
function installSqliteSaver() {
  const ready = join(SCRATCH, "ready");
  if (!existsSync(ready)) {
    mkdirSync(SCRATCH, { recursive: true });
    writeFileSync(
      join(SCRATCH, "package.json"),
      `${JSON.stringify({ name: "dotagent-langgraph-bench", private: true }, null, 2)}\n`,
    );
    const nodedir = dirname(dirname(process.execPath));
    console.error(
      `installing ${SQLITE_SAVER} into ${SCRATCH} (better-sqlite3 builds from source: a few minutes, once)`,
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--legacy-peer-deps", SQLITE_SAVER], {
      cwd: SCRATCH,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, npm_config_nodedir: nodedir },
    });
    writeFileSync(ready, `${SQLITE_SAVER}\n`);
  }
  // The peers SqliteSaver imports are this repository's own copies (one BaseCheckpointSaver).
  for (const peer of ["@langchain/langgraph-checkpoint", "@langchain/core"]) {
    const link = join(SCRATCH, "node_modules", peer);
    const target = join(root, "node_modules", peer);
    let current;
    try {
      current = readlinkSync(link);
    } catch {
      current = undefined;
    }
    if (current === target) continue;
    rmSync(link, { recursive: true, force: true });
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
  }
  const require = createRequire(join(SCRATCH, "package.json"));
  return {
    saverUrl: pathToFileURL(require.resolve("@langchain/langgraph-checkpoint-sqlite")).href,
    Database: require("better-sqlite3"),
    betterSqlite3: require("better-sqlite3/package.json").version,
  };
}

// --- workloads --------------------------------------------------------------------------------

const WINDOW = 50;
const words =
  "the plan calls for a careful change to the parser so that every branch keeps its own values and the build stays green while tests run".split(
    " ",
  );
function message(i) {
  let content = "";
  for (let k = 0; content.length < 320; k++) content += `${words[(i * 7 + k) % words.length]} `;
  return { id: `msg-${i}`, type: i % 2 === 0 ? "human" : "ai", content: `${i}: ${content.trim()}` };
}
const windowAt = (n) =>
  Array.from({ length: Math.min(WINDOW, n + 1) }, (_, k) => message(Math.max(0, n + 1 - WINDOW) + k));

function checkpointAt(n, uuid6) {
  return {
    v: 4,
    id: uuid6(-3),
    ts: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
    channel_values: { messages: windowAt(n), step: n },
    channel_versions: { messages: n + 1, step: n + 1 },
    versions_seen: { agent: { messages: n } },
  };
}

const at = (thread, id) => ({
  configurable: { thread_id: thread, checkpoint_ns: "", ...(id === undefined ? {} : { checkpoint_id: id }) },
});

/** Times `count` calls of `call(i)` in chunks, alternating between the savers; returns each saver's calls per second. */
async function alternate(savers, count, chunk, call) {
  const spent = savers.map(() => 0);
  const done = savers.map(() => 0);
  while (done.some((d) => d < count)) {
    for (const [s, saver] of savers.entries()) {
      const end = Math.min(count, done[s] + chunk);
      const started = process.hrtime.bigint();
      for (let i = done[s]; i < end; i++) await call(saver, i, s);
      spent[s] += Number(process.hrtime.bigint() - started) / 1e9;
      done[s] = end;
    }
  }
  return spent.map((t) => count / t);
}

async function round(makers, lib, order) {
  const { uuid6, StateGraph, Annotation, START, END } = lib;
  const savers = order.map((name) => ({ name, ...makers[name]() }));
  const names = savers.map((s) => s.name);
  const result = {};
  const fill = (key, rates) => rates.forEach((r, s) => ((result[names[s]] ??= {})[key] = r));
  try {
    // put: a chain of 1,000 checkpoints on one thread.
    const parents = savers.map(() => undefined);
    fill(
      "put",
      await alternate(
        savers.map((s) => s.saver),
        1000,
        25,
        async (saver, i, s) => {
          const config = await saver.put(
            at("bench", parents[s]),
            checkpointAt(i, uuid6),
            { source: "loop", step: i, parents: {} },
            { messages: i + 1, step: i + 1 },
          );
          parents[s] = config.configurable.checkpoint_id;
        },
      ),
    );
    fill(
      "getTuple",
      await alternate(
        savers.map((s) => s.saver),
        300,
        30,
        async (saver) => {
          if ((await saver.getTuple(at("bench")))?.checkpoint.channel_values.messages.length !== WINDOW)
            throw new Error("getTuple read back the wrong checkpoint");
        },
      ),
    );
    // list: one whole-thread listing per chunk; the rate is tuples per second.
    const listed = await alternate(
      savers.map((s) => s.saver),
      5,
      1,
      async (saver) => {
        let n = 0;
        for await (const tuple of saver.list(at("bench")))
          n += tuple.checkpoint.channel_values.step === undefined ? 0 : 1;
        if (n !== 1000) throw new Error(`list read ${n} checkpoints, not 1000`);
      },
    );
    fill(
      "list",
      listed.map((r) => r * 1000),
    );
    fill(
      "putWrites",
      await alternate(
        savers.map((s) => s.saver),
        300,
        25,
        async (saver, i, s) => {
          await saver.putWrites(
            at("bench", parents[s]),
            [
              ["messages", [message(5000 + i)]],
              ["step", 1],
            ],
            `task-${i}`,
            `~task-${i}`,
          );
        },
      ),
    );
    // getTuple as a thread grows: the newest of a thread of 200, then of 2,000 checkpoints.
    const grown = savers.map(() => undefined);
    for (const size of [200, 2000]) {
      for (const [s, { saver }] of savers.entries()) {
        for (let i = size === 200 ? 0 : 200; i < size; i++)
          grown[s] = (
            await saver.put(
              at(`grow`, grown[s]),
              checkpointAt(i, uuid6),
              { source: "loop", step: i, parents: {} },
              { messages: i + 1, step: i + 1 },
            )
          ).configurable.checkpoint_id;
      }
      fill(
        `getTuple_at_${size}`,
        await alternate(
          savers.map((s) => s.saver),
          200,
          20,
          async (saver) => {
            if ((await saver.getTuple(at("grow")))?.checkpoint.channel_values.step !== size - 1)
              throw new Error("getTuple read back the wrong checkpoint");
          },
        ),
      );
    }
    // A real graph: 20 nodes in a row, each adding a message to a window of 50; 50 invokes on one thread.
    const State = Annotation.Root({
      messages: Annotation({ reducer: (all, more) => [...all, ...more].slice(-WINDOW), default: () => [] }),
    });
    const graphs = savers.map(({ saver }) => {
      let builder = new StateGraph(State);
      for (let n = 0; n < 20; n++)
        builder = builder.addNode(`n${n}`, (state) => ({ messages: [message(state.messages.length + n)] }));
      builder = builder.addEdge(START, "n0");
      for (let n = 1; n < 20; n++) builder = builder.addEdge(`n${n - 1}`, `n${n}`);
      return builder.addEdge("n19", END).compile({ checkpointer: saver });
    });
    fill(
      "graph",
      await alternate(graphs, 50, 5, async (graph) => {
        await graph.invoke({ messages: [message(0)] }, { configurable: { thread_id: "graph" } });
      }),
    );
  } finally {
    for (const s of savers) s.close();
  }
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { rounds: { type: "string" }, write: { type: "boolean" }, table: { type: "boolean" } },
  });
  if (values.table) {
    console.log(benchTable());
    process.exit(0);
  }
  const rounds = Number(values.rounds ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error("langgraph-bench: --rounds takes a whole number ≥ 1");
    process.exit(2);
  }
  const saverPath = resolve(process.env.BENCH_SAVER ?? join(root, "dist/langgraph.mjs"));
  if (!existsSync(saverPath)) {
    console.error(
      `langgraph-bench: ${saverPath} does not exist; run \`npm run build\` (npm run bench:langgraph builds first)`,
    );
    process.exit(2);
  }
  const sqlite = installSqliteSaver();
  const { SqliteSaver } = await import(sqlite.saverUrl);
  const { DotagentSaver } = await import(pathToFileURL(saverPath).href);
  const { uuid6 } = await import("@langchain/langgraph-checkpoint");
  const { StateGraph, Annotation, START, END } = await import("@langchain/langgraph");
  const work = mkdtempSync(join(tmpdir(), "dotagent-lg-bench-"));
  const sqliteSaver = (synchronous) => () => {
    const folder = mkdtempSync(join(work, "s-"));
    const db = new sqlite.Database(join(folder, "checkpoints.db"));
    const saver = new SqliteSaver(db);
    saver.setup(); // WAL, as shipped
    if (synchronous !== undefined) db.pragma(`synchronous=${synchronous}`);
    return { saver, close: () => db.close() };
  };
  const makers = {
    dotagent: () => ({ saver: new DotagentSaver(mkdtempSync(join(work, "d-"))), close: () => {} }),
    sqlite_full: sqliteSaver("FULL"),
    sqlite_normal: sqliteSaver(undefined),
  };
  const probe = new sqlite.Database(":memory:");
  const facts = { sqlite: probe.prepare("select sqlite_version() as v").get().v, journal: sqliteSaver("FULL")() };
  const journal = facts.journal.saver.db.pragma("journal_mode", { simple: true });
  const sync = facts.journal.saver.db.pragma("synchronous", { simple: true });
  facts.journal.close();
  probe.close();
  if (journal !== "wal" || sync !== 2)
    throw new Error(`SqliteSaver runs journal_mode=${journal}, synchronous=${sync}: expected wal and 2 (FULL)`);

  const started = Date.now();
  const loads = [];
  const perRound = [];
  const names = Object.keys(makers);
  try {
    for (let r = 0; r < rounds; r++) {
      loads.push(loadavg()[0]);
      const order = names.map((_, k) => names[(k + r) % names.length]);
      const result = await round(makers, { uuid6, StateGraph, Annotation, START, END }, order);
      perRound.push(result);
      console.error(
        `round ${r + 1}/${rounds}: ${ROWS.map(([key]) => `${key} ${(result.dotagent[key] / result.sqlite_full[key]).toFixed(2)}×`).join(", ")}`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rates = Object.fromEntries(
    names.map((n) => [
      n,
      Object.fromEntries(Object.keys(perRound[0][n]).map((k) => [k, median(perRound.map((p) => p[n][k]))])),
    ]),
  );
  const recorded = {
    measured_with: `Node.js ${process.version}, ${platform()} ${release()}`,
    sqlite_saver: SQLITE_SAVER.split("@").pop(),
    better_sqlite3: sqlite.betterSqlite3,
    sqlite: facts.sqlite,
    rounds,
    minutes: Number(((Date.now() - started) / 60_000).toFixed(1)),
    load: `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
    rates: Object.fromEntries(names.map((n) => [n, Object.fromEntries(ROWS.map(([k]) => [k, rates[n][k]]))])),
    // A ratio is the median of the rounds' ratios: both savers of a round ran under the same load.
    ratios: Object.fromEntries(
      ["sqlite_full", "sqlite_normal"].map((n) => [
        n,
        Object.fromEntries(ROWS.map(([k]) => [k, median(perRound.map((p) => p.dotagent[k] / p[n][k]))])),
      ]),
    ),
    flat: Object.fromEntries(names.map((n) => [n, [rates[n].getTuple_at_200, rates[n].getTuple_at_2000]])),
    rounds_measured: perRound,
  };
  const table = benchTable(recorded);
  console.log(table);
  if (values.write) {
    writeFileSync(FIGURES, `${JSON.stringify(recorded, null, 2)}\n`);
    const evidence = join(root, "docs/evidence.md");
    const text = readFileSync(evidence, "utf8");
    const block = /<!-- langgraph-bench -->\n(?:[\s\S]*?\n)?<!-- \/langgraph-bench -->/;
    if (!block.test(text)) throw new Error("docs/evidence.md has no <!-- langgraph-bench --> block");
    writeFileSync(evidence, text.replace(block, `<!-- langgraph-bench -->\n${table}\n<!-- /langgraph-bench -->`));
    console.log(`\nrecorded in ${FIGURES} and docs/evidence.md`);
  }
}
