// The model's reading cost of dotagent over a journey, from the scripted model's log: every byte
// of dotagent text the model receives — the /develop expansion each time it loads, each agent's
// body each time one is spawned, every helper output, every SessionStart briefing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isHelper, toolCalls, toolResults } from "./journey.js";
import type { LogEntry } from "./server.js";

export interface CostRow {
  source: string;
  count: number;
  bytes: number;
  largest: number;
}

export interface ReadingCost {
  total: number;
  helperCalls: number;
  helperBytes: number;
  rows: CostRow[];
}

const agentBody = (agentsDir: string, type: string) =>
  Buffer.byteLength(readFileSync(join(agentsDir, `${type}.md`), "utf8").replace(/^---[\s\S]*?\n---\n/, ""));

export function readingCost(log: LogEntry[], agentsDir: string): ReadingCost {
  const rows = new Map<string, CostRow>();
  const add = (source: string, bytes: number) => {
    const row = rows.get(source) ?? { source, count: 0, bytes: 0, largest: 0 };
    row.count++;
    row.bytes += bytes;
    row.largest = Math.max(row.largest, bytes);
    rows.set(source, row);
  };
  const seen = new Set<string>();
  for (const e of log) {
    if (e.kind !== "request") continue;
    for (const t of (e.dotagent as Array<{ kind: string; sha: string; bytes: number }> | undefined) ?? []) {
      if (seen.has(t.sha)) continue;
      seen.add(t.sha);
      add(t.kind === "skill" ? "/develop expansion (skill body + resume JSON)" : "SessionStart briefing", t.bytes);
    }
  }
  const results = toolResults(log);
  for (const call of toolCalls(log)) {
    if (call.name === "Agent")
      add(
        `agent body: ${String(call.input.subagent_type).replace(/^.*:/, "")}`,
        agentBody(agentsDir, String(call.input.subagent_type).replace(/^.*:/, "")),
      );
    if (!isHelper(call)) continue;
    const result = results.get(call.id);
    if (!result) continue;
    const words = String(call.input.command)
      .replace(/^node "[^"]*" /, "")
      .split(/\s+/);
    const sub = ["phase", "task"].includes(words[0]!) ? `${words[0]} ${words[1]}` : words[0]!;
    add(`helper: ${sub}`, Buffer.byteLength(result.text));
  }
  const list = [...rows.values()].sort((a, b) => b.bytes - a.bytes);
  const helper = list.filter((r) => r.source.startsWith("helper: "));
  return {
    total: list.reduce((n, r) => n + r.bytes, 0),
    helperCalls: helper.reduce((n, r) => n + r.count, 0),
    helperBytes: helper.reduce((n, r) => n + r.bytes, 0),
    rows: list,
  };
}

export function costTable(cost: ReadingCost): string {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  return [
    "| source | times | bytes | largest |",
    "|---|---|---|---|",
    ...cost.rows.map((r) => `| ${r.source} | ${r.count} | ${r.bytes} | ${r.largest} |`),
    `| **total** | | **${cost.total} (${kib(cost.total)})** | |`,
    `| of which helper outputs | ${cost.helperCalls} | ${cost.helperBytes} (${kib(cost.helperBytes)}) | |`,
  ].join("\n");
}
