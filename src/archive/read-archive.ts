// Reading an archive without extracting it: the manifest alone (for `archive list`), or every
// entry checked against the entry policy (before restore writes anything). Neither throws for a
// damaged or hostile archive: the result says what is wrong. node-tar runs with `strict: true`, so
// a bad checksum, a truncated body or a broken gzip stream is an error here, never a skipped entry.
import { list as listTar, type Parser, type ReadEntry } from "tar";
import { decodeJson } from "../schema/common.js";
import { MANIFEST_NAME } from "./archive-layout.js";
import { checkEntry, DEFAULT_LIMITS, type ArchiveLimits } from "./entry-policy.js";
import { maxInflatedBytes, pumpTarGz } from "./pump-tar.js";
import { describeManifestProblems, MAX_MANIFEST_SIZE, parseManifest, type Manifest } from "./manifest.js";

export type ManifestRead =
  { readonly ok: true; readonly manifest: Manifest } | { readonly ok: false; readonly error: string };

export interface ScannedEntry {
  /** Without a trailing slash. */
  readonly path: string;
  readonly kind: "file" | "directory";
  readonly size: number;
  /** Of the file's bytes, when the scan was asked to hash. */
  readonly sha256?: string;
}

export type ScanResult =
  | { readonly ok: true; readonly entries: readonly ScannedEntry[]; readonly manifest: ManifestRead | null }
  | { readonly ok: false; readonly problem: "unsafe"; readonly entry: string; readonly reason: string }
  | { readonly ok: false; readonly problem: "unreadable"; readonly reason: string };

/** Reads the first entry only, which must be the manifest, and stops reading there. */
export function readManifest(file: string): Promise<ManifestRead> {
  return new Promise((resolve) => {
    let seenFirst = false;
    const parser = listTar({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (seenFirst) return;
        seenFirst = true;
        if (entry.path !== MANIFEST_NAME) {
          feed.stop({
            ok: false,
            error: `no manifest: first entry is ${JSON.stringify(entry.path)}, not ${MANIFEST_NAME}`,
          });
        } else if (entry.size > MAX_MANIFEST_SIZE) {
          feed.stop({ ok: false, error: `manifest is ${entry.size} bytes (limit ${MAX_MANIFEST_SIZE})` });
        } else {
          collectBody(entry, (body) => feed.stop(decodeManifest(body)));
        }
      },
    });
    const feed = feedFile<ManifestRead>(file, parser, resolve, {
      onError: (message) => ({ ok: false, error: `cannot be read: ${message}` }),
      onEnd: () => ({ ok: false, error: "empty archive: no manifest" }),
    });
  });
}

/**
 * Reads every entry and checks it against the policy, stopping at the first refusal. Also
 * refuses entries node-tar would skip silently (unknown types, oversized extended headers), paths
 * that appear twice, and archives over the entry-count or total-size limits.
 */
export function scanArchive(
  file: string,
  limits: ArchiveLimits,
  options: { hash?: boolean } = {},
): Promise<ScanResult> {
  return new Promise((resolve) => {
    const entries: ScannedEntry[] = [];
    const seen = new Set<string>();
    const files = new Set<string>();
    const folders = new Set<string>();
    let count = 0;
    let total = 0;
    let manifestBody: Buffer | null = null;
    const refuse = (entry: string, reason: string): void => feed.stop({ ok: false, problem: "unsafe", entry, reason });
    const countEntry = (path: string): boolean => {
      count += 1;
      if (count <= limits.maxEntries) return true;
      refuse(path, `is entry number ${count} (limit ${limits.maxEntries} entries)`);
      return false;
    };

    const parser = listTar({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (feed.stopped || !countEntry(entry.path)) return;
        const verdict = checkEntry(entry, limits);
        if (!verdict.ok) return refuse(entry.path, verdict.reason);
        if (seen.has(verdict.path)) return refuse(entry.path, "appears twice in the archive");
        // A file and a folder at one path would make extraction write through or over one of them.
        const parents = listAncestors(verdict.path);
        const fileParent = parents.find((parent) => files.has(parent));
        if (fileParent !== undefined)
          return refuse(entry.path, `lies inside ${JSON.stringify(fileParent)}, which is a file in the archive`);
        if (verdict.kind === "file" && folders.has(verdict.path))
          return refuse(entry.path, "is a file where the archive has a folder");
        seen.add(verdict.path);
        (verdict.kind === "file" ? files : folders).add(verdict.path);
        for (const parent of parents) folders.add(parent);
        total += verdict.kind === "file" ? entry.size : 0;
        if (total > limits.maxTotalSize)
          return refuse(entry.path, `brings the content to ${total} bytes (limit ${limits.maxTotalSize})`);
        const scanned: { path: string; kind: "file" | "directory"; size: number; sha256?: string } = {
          path: verdict.path,
          kind: verdict.kind,
          size: entry.size,
        };
        entries.push(scanned);
        if (verdict.path === MANIFEST_NAME) collectBody(entry, (body) => (manifestBody = body));
        else if (options.hash && verdict.kind === "file") {
          const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
          entry.on("data", (chunk: Buffer) => hash.update(chunk));
          entry.on("end", () => (scanned.sha256 = hash.digest("hex")));
        }
      },
    });
    // node-tar hands entries of unknown type, and extended headers over its size limit, to this
    // event instead of onReadEntry; extraction would skip them, we refuse the archive.
    parser.on("ignoredEntry", (entry: ReadEntry) => {
      if (feed.stopped || !countEntry(entry.path)) return;
      refuse(
        entry.path,
        entry.meta
          ? "has an extended header larger than node-tar reads"
          : `has an entry type dotagent does not restore (${entry.type})`,
      );
    });
    parser.on("meta", () => {
      if (!feed.stopped) countEntry("(extended header)");
    });
    const feed = feedFile<ScanResult>(
      file,
      parser,
      resolve,
      {
        onError: (message) => ({ ok: false, problem: "unreadable", reason: message }),
        onEnd: () => ({ ok: true, entries, manifest: manifestBody === null ? null : decodeManifest(manifestBody) }),
      },
      maxInflatedBytes(limits),
    );
  });
}

export type VerifyResult =
  { readonly ok: true; readonly manifest: Manifest } | { readonly ok: false; readonly reason: string };

/**
 * Proves an archive holds what its manifest lists: every listed file present with the listed
 * size and SHA-256. What a clear relies on before it removes the live files the archive holds.
 */
export async function verifyArchive(file: string, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<VerifyResult> {
  const scan = await scanArchive(file, limits, { hash: true });
  if (!scan.ok)
    return {
      ok: false,
      reason:
        scan.problem === "unsafe"
          ? `entry ${JSON.stringify(scan.entry)} ${scan.reason}`
          : `cannot be read (${scan.reason})`,
    };
  if (scan.manifest === null) return { ok: false, reason: "has no manifest" };
  if (!scan.manifest.ok) return { ok: false, reason: scan.manifest.error };
  const held = new Map(scan.entries.map((entry) => [entry.path, entry]));
  for (const expected of scan.manifest.manifest.files) {
    const entry = held.get(expected.path);
    if (entry === undefined) return { ok: false, reason: `${expected.path} is in the manifest but not in the archive` };
    if (entry.size !== expected.size || entry.sha256 !== expected.sha256)
      return { ok: false, reason: `${expected.path} does not match its checksum in the manifest` };
  }
  return { ok: true, manifest: scan.manifest.manifest };
}

/** `a`, `a/b` for `a/b/c`. */
export function listAncestors(path: string): string[] {
  const segments = path.split("/");
  return segments.slice(1).map((_, index) => segments.slice(0, index + 1).join("/"));
}

function decodeManifest(body: Buffer): ManifestRead {
  const json = decodeJson(body.toString("utf8"));
  if (!json.ok) return { ok: false, error: `manifest is ${json.message}` };
  const parsed = parseManifest(json.value);
  if (!parsed.ok) return { ok: false, error: `manifest does not match format 1: ${describeManifestProblems(parsed)}` };
  return { ok: true, manifest: parsed.value };
}

function collectBody(entry: ReadEntry, onDone: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  entry.on("data", (chunk: Buffer) => chunks.push(chunk));
  entry.on("end", () => onDone(Buffer.concat(chunks)));
}

interface Feed<T> {
  /** Stops reading the file and settles with `result` (the first settle wins). */
  stop(result: T): void;
  readonly stopped: boolean;
}

/**
 * Streams `file` into `parser` (pump-tar.ts: bounded, stops at the end of the tar) and settles
 * once: with what `stop` is given, with onError's value on any read, gzip or tar error, or with
 * onEnd's value at the end.
 */
function feedFile<T>(
  file: string,
  parser: Parser,
  settle: (result: T) => void,
  outcomes: { onError: (message: string) => T; onEnd: () => T },
  maxInflated: number = maxInflatedBytes(DEFAULT_LIMITS),
): Feed<T> {
  const feed = {
    stopped: false,
    stop(result: T): void {
      if (feed.stopped) return;
      feed.stopped = true;
      pump.stop();
      settle(result);
    },
  };
  const fail = (message: string): void => feed.stop(outcomes.onError(message));
  // Errors after we stopped (the gzip stream torn down mid-block) are expected; keep a listener
  // so they never surface as an unhandled 'error' event.
  parser.on("error", (error: unknown) => fail(error instanceof Error ? error.message : String(error)));
  parser.on("end", () => feed.stop(outcomes.onEnd()));
  const pump = pumpTarGz(file, parser, maxInflated, fail);
  return feed;
}
