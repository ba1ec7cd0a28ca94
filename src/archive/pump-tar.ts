// Feeds a .tar.gz file into a node-tar Parser (list or Unpack) with the work bounded, whatever the
// file holds: gunzip runs here, so the bytes inflated are counted and refused past `maxInflated`
// (a small file of low-entropy bytes can inflate to gigabytes), and reading stops at the tar's
// end-of-archive marker (two zero blocks), so a valid tar followed by a huge trailer costs only
// the tar. Back-pressure is kept, so memory stays flat.
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import type { Parser } from "tar";

export interface Pump {
  /** Stops reading (idempotent); the parser is not ended. */
  stop(): void;
}

export function pumpTarGz(file: string, parser: Parser, maxInflated: number, fail: (message: string) => void): Pump {
  const source = createReadStream(file);
  const gunzip = createGunzip();
  let stopped = false;
  let inflated = 0;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    source.destroy();
    gunzip.destroy();
  };
  const onError = (error: unknown): void => {
    if (stopped) return;
    stop();
    fail(error instanceof Error ? error.message : String(error));
  };
  source.on("error", onError);
  gunzip.on("error", onError);
  // The end-of-archive marker: whatever follows is not part of the archive.
  parser.on("eof", () => {
    if (stopped) return;
    stop();
    queueMicrotask(() => parser.end());
  });
  gunzip.on("data", (chunk: Buffer) => {
    if (stopped) return;
    inflated += chunk.length;
    if (inflated > maxInflated) return onError(new Error(`inflates to more than ${maxInflated} bytes`));
    try {
      if (!parser.write(chunk)) {
        gunzip.pause();
        parser.once("drain", () => gunzip.resume());
      }
    } catch (error) {
      onError(error);
    }
  });
  gunzip.on("end", () => {
    if (stopped) return;
    stopped = true;
    try {
      parser.end();
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    }
  });
  source.pipe(gunzip);
  return { stop };
}

/** What an archive within `limits` can inflate to: its content plus headers and padding. */
export function maxInflatedBytes(limits: { readonly maxTotalSize: number; readonly maxEntries: number }): number {
  return limits.maxTotalSize + limits.maxEntries * 3 * 512 + 64 * 1024 * 1024;
}
