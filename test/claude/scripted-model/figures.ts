// What a /develop journey cost, from the scripted model's log (it sees every request the client
// sends): model requests of the main agent and of the sub-agents, the bytes the main agent sent
// (each request re-sends the conversation), the helper calls the model made by phase, and how
// often auto mode's security monitor was asked, and about what. The journeys record these in
// docs/figures/ and fail when a run grows past the recorded figures by more than 10%.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { LogEntry } from "./server.js";
import { jsonObjectsIn } from "./policy.js";

export interface JourneyFigures {
  main_requests: number;
  main_bytes: number;
  sub_requests: number;
  helper_calls: number;
  helper_calls_by_phase: Record<string, number>;
  monitor_requests: number;
  monitor_about: Record<string, number>;
}

const isHelperLine = (command: unknown) => typeof command === "string" && /dotagent\.[cm]js"? /.test(command);

export function journeyFigures(log: readonly LogEntry[]): JourneyFigures {
  const requests = log.filter((e) => e.kind === "request");
  const main = requests.filter((e) => e.who === "main");
  const monitor = requests.filter((e) => e.who === "monitor");
  const sub = requests.filter(
    (e) => e.who !== "main" && e.who !== "monitor" && e.who !== "side" && e.who !== "compact",
  );
  const monitorAbout: Record<string, number> = {};
  for (const m of monitor)
    monitorAbout[String(m.about ?? "other")] = (monitorAbout[String(m.about ?? "other")] ?? 0) + 1;
  // The phase a helper call belongs to: the newest phase the helper or a hook reported before it.
  const byPhase: Record<string, number> = {};
  let phase = "REQUIREMENTS";
  let calls = 0;
  for (const e of log) {
    if (e.kind === "tool_result" && e.who === "main") {
      const found = jsonObjectsIn(String(e.text))
        .filter((o) => typeof o.phase === "string")
        .at(-1);
      if (found) phase = String(found.phase);
    }
    if (e.kind !== "response" || e.who !== "main") continue;
    for (const b of (e.blocks as Array<{ type: string; name?: string; input?: { command?: unknown } }>) ?? []) {
      if (b.type !== "tool_use" || b.name !== "Bash" || !isHelperLine(b.input?.command)) continue;
      calls++;
      byPhase[phase] = (byPhase[phase] ?? 0) + 1;
    }
  }
  return {
    main_requests: main.length,
    main_bytes: main.reduce((n, e) => n + Number(e.bytes ?? 0), 0),
    sub_requests: sub.length,
    helper_calls: calls,
    helper_calls_by_phase: byPhase,
    monitor_requests: monitor.length,
    monitor_about: monitorAbout,
  };
}

/** The figures a journey recorded (docs/figures/<name>.json), or undefined before the first record. */
export function recordedFigures(file: string): JourneyFigures | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { figures: JourneyFigures }).figures : undefined;
}

/** Writes the figures with the client version they were measured on (DOTAGENT_RECORD_FIGURES=1). */
export function recordFigures(file: string, figures: JourneyFigures, client: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify({ measured_with: `Claude Code ${client}, the scripted model`, figures }, null, 2)}\n`,
  );
}

/** The figures that grew past the recorded ones by more than 10% (the cost budget). */
export function overBudget(now: JourneyFigures, recorded: JourneyFigures): string[] {
  const keys = ["main_requests", "main_bytes", "sub_requests", "helper_calls", "monitor_requests"] as const;
  return keys.filter((k) => now[k] > Math.ceil(recorded[k] * 1.1)).map((k) => `${k}: ${now[k]} > ${recorded[k]} + 10%`);
}

/**
 * Writes a crash matrix (one row per kill point) with the client version and how long it ran
 * (DOTAGENT_RECORD_FIGURES=1 with DOTAGENT_JOURNEY_ALL=1); scripts/journey-figures.mjs prints it.
 */
export function recordMatrix(
  file: string,
  rows: readonly object[],
  client: string,
  minutes: number,
  clientName = "Claude Code",
): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify({ measured_with: `${clientName} ${client}, the scripted model`, minutes: Math.round(minutes * 10) / 10, rows }, null, 2)}\n`,
  );
}
