// Agents a killed `dotagent run` left behind. A kill -9 of the runner does not stop the Claude Code
// processes it started; each one's session record (recoverableQuery, memory/runs/<workflow>/)
// names its pid and start time. While one of them lives, its job is running: a new run must not
// start a second agent on it, so it stops before anything starts and says which process to wait
// for (or stop).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeJson } from "../schema/json.js";
import { readProjectText } from "../store/read-file.js";
import { isProcess, liveProcess, type QueryProcess } from "../api/recoverable-query.js";

export interface LiveAgent {
  /** The session's checkpoint id, like `executor.task-002.s1`. */
  readonly key: string;
  readonly process: QueryProcess;
}

const SUFFIX = ".checkpoint.json";

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The running sessions under memory/runs whose recorded Claude Code process is still alive. */
export function findLiveAgents(runsDir: string): LiveAgent[] {
  const live: LiveAgent[] = [];
  for (const store of names(runsDir)) {
    for (const file of names(join(runsDir, store)).filter((n) => n.endsWith(SUFFIX))) {
      const read = readProjectText(join(runsDir, store, file), { maxBytes: 1024 * 1024, links: "refuse" });
      if (read.kind !== "ok") continue;
      const decoded = decodeJson(read.text);
      const data = decoded.ok
        ? (decoded.value as { data?: { status?: unknown; process?: unknown } } | null)?.data
        : undefined;
      if (data?.status !== "running" || !isProcess(data.process)) continue;
      const alive = liveProcess(data.process);
      if (alive !== undefined) live.push({ key: file.slice(0, -SUFFIX.length), process: alive });
    }
  }
  return live;
}
