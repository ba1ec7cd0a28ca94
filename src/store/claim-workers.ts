// The workers this clone has run (SPEC §23 "A run restarted on the same machine"): one line per
// `dotagent run --claims` process, appended to `<git common dir>/dotagent/claim-workers.jsonl`
// before it pushes any claim. A worker id is random per process, so a restarted run cannot know
// its dead predecessor's claims by id alone; this record says which ids were this clone's, and
// on which machine and boot (the host name alone repeats across CI containers; the boot id and
// the pid namespace tell them apart). A claim held by such a worker whose process is verifiably
// gone is taken over at once instead of waiting out its lease. The file is this clone's own,
// never pushed; a line that does not parse is skipped.
import { readFileSync, readlinkSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { isAbsolute, join } from "node:path";
import type { ClaimWorker } from "../core/claims.js";
import { git } from "./git.js";
import { appendFileInside, mkdirInside } from "./write-file.js";

/** Past this size the record is read from its end only (a clone that ran very many workers). */
const MAX_READ_BYTES = 256 * 1024;

/** This machine's boot and pid namespace, as far as the system tells them ("" where it does not). */
export function machineBoot(): string {
  let boot = "";
  try {
    boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    // Not Linux: the host name and the pid are what is left.
  }
  let ns = "";
  try {
    ns = readlinkSync("/proc/self/ns/pid");
  } catch {
    // No pid namespaces here.
  }
  return `${boot}/${ns}`;
}

function recordFile(cwd: string): { dir: string; file: string } | undefined {
  const run = git(cwd, ["rev-parse", "--git-common-dir"], { ok: [128], readOnly: true });
  if (run.status !== 0) return undefined;
  const common = run.stdout.trim();
  const dir = isAbsolute(common) ? common : join(cwd, common);
  return { dir, file: join(dir, "dotagent", "claim-workers.jsonl") };
}

/** Records `worker` as one of this clone's, on this machine and boot (best effort: a clone whose git folder cannot be written just waits out leases). */
export function recordWorker(cwd: string, worker: ClaimWorker, now: Date): void {
  try {
    const where = recordFile(cwd);
    if (where === undefined) return;
    mkdirInside(where.dir, join(where.dir, "dotagent"), { within: "the clone's git folder" });
    const line = { id: worker.id, host: worker.host, pid: worker.pid, boot: machineBoot(), at: now.toISOString() };
    appendFileInside(where.dir, where.file, `${JSON.stringify(line)}\n`, { within: "the clone's git folder" });
  } catch {
    // Not recorded: a restart waits out this worker's leases, as without the record.
  }
}

/** Whether process `pid` is gone on this machine (ESRCH); a pid that answers, or cannot be asked, is not. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * The ids of this clone's earlier workers whose process is verifiably gone: recorded here, on
 * this host and boot (and pid namespace), not this process, and no process of that pid alive. A
 * pid reused since answers as alive: that worker's leases are waited out, the safe way round.
 */
export function deadOwnWorkers(cwd: string): Set<string> {
  const dead = new Set<string>();
  let text: string;
  try {
    const where = recordFile(cwd);
    if (where === undefined) return dead;
    const size = statSync(where.file).size;
    text = readFileSync(where.file, "utf8");
    if (size > MAX_READ_BYTES) text = text.slice(-MAX_READ_BYTES);
  } catch {
    return dead;
  }
  const host = hostname().slice(0, 255) || "unknown";
  const boot = machineBoot();
  for (const line of text.split("\n")) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record !== "object" || record === null) continue;
    const r = record as Record<string, unknown>;
    if (typeof r.id !== "string" || !/^[0-9a-f]{16}$/.test(r.id)) continue;
    if (r.host !== host || r.boot !== boot || boot === "/") continue;
    if (typeof r.pid !== "number" || !Number.isInteger(r.pid) || r.pid < 1 || r.pid === process.pid) continue;
    if (gone(r.pid)) dead.add(r.id);
  }
  return dead;
}
