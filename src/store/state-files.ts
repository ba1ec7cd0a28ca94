// Reading the two state files (through read-file.ts: never blocks, bounded, no links). Reads never
// throw for bad content (only when the disk refuses to read): a file is missing, ok, or
// corrupt with problems that name the file and the JSON path. A well-formed file passes the quick
// check; anything else goes to the zod schema (loaded only then), which decides and explains.
import { statSync } from "node:fs";
import { relative } from "node:path";
import type { ParseResult } from "../schema/json.js";
import { decodeJsonBytes } from "./parse-state-json.js";
import type { FileRead } from "../core/snapshot.js";
import { quickExecutionState, quickPhaseState } from "../schema/quick-parse.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, readProjectFile, type FileBytes } from "./read-file.js";
import { digestOf, stampedDigest } from "./last-write.js";
import { handOn, roomFor } from "./spare-buffer.js";
import { DotagentError, EXIT } from "../core/errors.js";
import type { Flow } from "../core/flow.js";
import { flowOrDefault } from "../core/flow-of.js";

export type { FileProblem, FileRead } from "../core/snapshot.js";

/** Identity of what was read, to notice a write by someone else before overwriting. */
export function stampOf(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return "missing";
  }
}

type Raw = FileRead<never> | { kind: "decoded"; file: string; value: unknown; stamp: string; sha256: string };

function readRaw(root: string, file: string): Raw {
  const rel = relative(root, file);
  const stamp = stampOf(file);
  const read = readDecoded(file);
  if (read.kind === "missing") return { kind: "missing", file: rel };
  if (read.kind === "refused") {
    // Unreadable is not corrupt (and never missing): the file may be fine, the disk said no.
    if (read.errno !== undefined && read.errno !== "ELOOP") {
      throw new DotagentError(
        "state_unreadable",
        `${rel} ${read.reason}; check the permissions of memory/state/`,
        EXIT.invalid,
        { path: rel, errno: read.errno },
      );
    }
    return {
      kind: "corrupt",
      file: rel,
      stamp,
      sha256: null,
      problems: [{ file: rel, path: "", message: read.reason }],
    };
  }
  const decoded = read.decoded;
  if (!decoded.ok)
    return {
      kind: "corrupt",
      file: rel,
      stamp,
      sha256: read.sha256,
      problems: [{ file: rel, path: "", message: decoded.message }],
    };
  return { kind: "decoded", file: rel, value: decoded.value, stamp, sha256: read.sha256 };
}

/**
 * A state file's JSON and the digest of its very bytes, which says whether dotagent wrote them
 * (last-write.ts): one read, no second look. The digest is the recorded one when the descriptor
 * read through still has the stamp dotagent recorded (no hash), else the bytes are hashed. The
 * bytes are parsed without a string of the whole file when large (parse-state-json.ts), then
 * handed on to the next state write.
 */
function readDecoded(
  file: string,
): { kind: "ok"; decoded: ReturnType<typeof decodeJsonBytes>; sha256: string } | Exclude<FileBytes, { kind: "ok" }> {
  // Room for the state this command writes next to be encoded into the same memory (a task
  // change adds a few hundred bytes), once the bytes read are parsed and hashed.
  const read = readProjectFile(file, { maxBytes: MAX_STATE_BYTES, links: "refuse", statAfter: true, room: roomFor });
  if (read.kind !== "ok") return read;
  const sha256 = stampedDigest(file, read.after!) ?? digestOf(read.bytes);
  const decoded = decodeJsonBytes(read.bytes);
  handOn(read.bytes, decoded.ok ? decoded.held : undefined);
  return { kind: "ok", decoded, sha256 };
}

function judged<T>(raw: Extract<Raw, { kind: "decoded" }>, parsed: ParseResult<T>): FileRead<T> {
  if (!parsed.ok)
    return {
      kind: "corrupt",
      file: raw.file,
      stamp: raw.stamp,
      sha256: raw.sha256,
      problems: parsed.problems.map((p) => ({ ...p, file: raw.file })),
    };
  return { kind: "ok", file: raw.file, value: parsed.value, stamp: raw.stamp, sha256: raw.sha256 };
}

type Parse<T> = (data: unknown) => ParseResult<T>;

async function readStateFile<T>(
  root: string,
  file: string,
  quick: (data: unknown) => T | undefined,
  loadParse: () => Promise<Parse<T>>,
): Promise<FileRead<T>> {
  const raw = readRaw(root, file);
  if (raw.kind !== "decoded") return raw;
  const fast = quick(raw.value);
  if (fast !== undefined) return { kind: "ok", file: raw.file, value: fast, stamp: raw.stamp, sha256: raw.sha256 };
  return judged(raw, (await loadParse())(raw.value));
}

/** The same read with the zod schemas at hand: for library users who want it synchronous. */
export function readStateFileSync<T>(root: string, file: string, parse: Parse<T>): FileRead<T> {
  const raw = readRaw(root, file);
  return raw.kind === "decoded" ? judged(raw, parse(raw.value)) : raw;
}

export function readPhaseFile(paths: ProjectPaths): Promise<FileRead<PhaseState>> {
  return readStateFile(
    paths.root,
    paths.phaseFile,
    quickPhaseState,
    async () => (await import("../schema/phase.js")).parsePhaseState,
  );
}

/**
 * The flow of the workflow here, for a reader that must answer whatever phase.json holds (the
 * hooks, a person's Next line): flowOrDefault of the file as read; a file the disk refuses to read
 * (a folder, no permission) counts as one that does not parse.
 */
export async function readFlow(paths: ProjectPaths): Promise<Flow> {
  let read: Parameters<typeof flowOrDefault>[0];
  try {
    read = await readPhaseFile(paths);
  } catch {
    read = { kind: "corrupt" };
  }
  return flowOrDefault(read);
}

export function readExecutionFile(paths: ProjectPaths): Promise<FileRead<ExecutionState>> {
  return readStateFile(
    paths.root,
    paths.executionFile,
    quickExecutionState,
    async () => (await import("../schema/execution.js")).parseExecutionState,
  );
}
