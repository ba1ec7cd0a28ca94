// Helpers for the archive tests only (not exported from index.ts): sandboxes in the OS temp
// folder, sample state, byte-level snapshots, and a raw tar writer that produces the hostile
// entries node-tar's own Pack would sanitize away.
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { Header, list as listTar, type HeaderData, type ReadEntry } from "tar";

type EntryTypeName = NonNullable<HeaderData["type"]>;

export interface Sandbox {
  /** The temp folder holding both of the others. */
  readonly base: string;
  /** The project root. */
  readonly root: string;
  /** A folder outside the project that attacks aim at. */
  readonly outside: string;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const base = mkdtempSync(join(tmpdir(), "dotagent-archive-"));
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(join(root, "memory", "state"), { recursive: true });
  mkdirSync(join(root, "memory", "reports"), { recursive: true });
  mkdirSync(outside);
  return { base, root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function samplePhase(workflowId = "wf-login", overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    workflow_id: workflowId,
    started_at: "2026-11-20T09:00:00Z",
    last_updated: "2026-11-20T10:30:00Z",
    current_phase: "ARCHITECTURE",
    phase_status: "in_progress",
    completed_phases: [
      { phase: "REQUIREMENTS", completed_at: "2026-11-20T10:00:00Z", output: "memory/reports/demand.json" },
    ],
    user_checkpoints: [{ phase: "REQUIREMENTS", approved_at: "2026-11-20T09:58:00Z" }],
    interruption_safe: true,
    ...overrides,
  };
}

export function sampleExecution(workflowId = "wf-login"): Record<string, unknown> {
  return {
    workflow_id: workflowId,
    updated_at: "2026-11-20T11:00:00Z",
    interruption_safe: true,
    max_attempts: 3,
    tasks: [
      {
        id: "task-001",
        title: "Login form",
        status: "running",
        depends_on: [],
        attempts: 1,
        started_at: "2026-11-20T10:40:00Z",
        completed_at: null,
        output: "memory/reports/tasks/task-001.json",
        error: null,
      },
    ],
  };
}

export interface LiveState {
  /** An object is written as JSON; a string as is (for corrupt files). */
  readonly phase?: Record<string, unknown> | string;
  readonly execution?: Record<string, unknown> | string;
  readonly events?: string;
  /** Paths relative to memory/reports/. */
  readonly reports?: Readonly<Record<string, string | Buffer>>;
}

export function writeLiveState(root: string, state: LiveState): void {
  const stateDir = join(root, "memory", "state");
  const asText = (value: Record<string, unknown> | string): string =>
    typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`;
  if (state.phase !== undefined) writeFileSync(join(stateDir, "phase.json"), asText(state.phase));
  if (state.execution !== undefined) writeFileSync(join(stateDir, "execution.json"), asText(state.execution));
  if (state.events !== undefined) writeFileSync(join(stateDir, "events.jsonl"), state.events);
  for (const [rel, data] of Object.entries(state.reports ?? {})) {
    const file = join(root, "memory", "reports", rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, data);
  }
}

/**
 * Every path under `dir` with what is there: `dir`, `link -> target`, or `file <size> <sha256>`.
 * Two equal snapshots mean the same tree, byte for byte.
 */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string): void => {
    for (const name of readdirSync(abs).sort()) {
      const childAbs = join(abs, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const stat = lstatSync(childAbs);
      if (stat.isSymbolicLink()) out[childRel] = `link -> ${readlinkSync(childAbs)}`;
      else if (stat.isDirectory()) {
        out[childRel] = "dir";
        walk(childAbs, childRel);
      } else if (stat.isFile()) {
        out[childRel] = `file ${stat.size} ${createHash("sha256").update(readFileSync(childAbs)).digest("hex")}`;
      } else out[childRel] = "other";
    }
  };
  walk(dir, "");
  return out;
}

export interface RawEntry {
  readonly path: string;
  readonly type?: EntryTypeName;
  readonly data?: string | Buffer;
  readonly linkpath?: string;
  readonly mode?: number;
}

/**
 * A gzipped tar written header by header with node-tar's Header, so paths and types are exactly
 * as given: nothing stripped, nothing refused.
 */
export function buildTarGz(entries: readonly RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const type = entry.type ?? "File";
    const data = entry.data === undefined ? Buffer.alloc(0) : Buffer.from(entry.data);
    const header = new Header({
      path: entry.path,
      type,
      size: data.length,
      mode: entry.mode ?? (type === "Directory" ? 0o755 : 0o644),
      mtime: new Date("2026-11-20T09:00:00Z"),
      uid: 0,
      gid: 0,
      ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    if (header.needPax) throw new Error(`buildTarGz: ${entry.path} needs a pax header; use a shorter path`);
    blocks.push(block, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

export interface RawListing {
  readonly path: string;
  readonly type: string;
  readonly linkpath: string | undefined;
  readonly size: number;
}

/** What is really in an archive, as node-tar's parser sees it before any sanitizing. */
export async function listRawEntries(file: string): Promise<RawListing[]> {
  const out: RawListing[] = [];
  await listTar({
    file,
    onReadEntry: (entry: ReadEntry) => {
      out.push({ path: entry.path, type: entry.type, linkpath: entry.linkpath, size: entry.size });
    },
  });
  return out;
}
