// Whether a copy of the helper (the one-file CLI the skills run, dotagent.mjs) can still run
// (issue 41). A helper cut short (a full disk, a copy stopped half-way) or with bytes changed
// inside its halves fails every command with `helper_damaged` or "a half of it is missing"
// (src/cli/boot.ts, load-cold.ts), whose fix is to install again. An install keeps a file the
// person edited since it was installed (plan-files.ts), which would keep such a helper too: a copy
// that cannot run is nobody's edit, so install replaces it and doctor names it.
//
// The layout is the build's (scripts/build.mjs, read by src/cli/boot.ts): the loader, then the
// hot half and the cold half in block comments opened by `/*\x01H` and `/*\x01C`, each `*/` inside
// them written `*\x01/`. The cold half is brotli-compressed, then base64.
import { brotliDecompressSync } from "node:zlib";
import { Script } from "node:vm";

const LOADER = Buffer.from("/*\x01L*/");

/** Whether `bytes` is a build of the helper (its loader's marker is in it), damaged or not. */
export function isHelper(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(LOADER);
}

/**
 * Why this helper cannot run ("a half of it is missing", "its cold half does not unpack", "its
 * hot half does not parse"), or null when both halves are there, the cold one unpacks and the hot
 * one parses. Parsing is V8's lazy pre-parse of ~500 kB (milliseconds); nothing is run.
 */
export function helperDamage(bytes: Uint8Array): string | null {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hot = commentText(file, "\x01H");
  const cold = commentText(file, "\x01C");
  if (hot === null || cold === null) return "a half of it is missing";
  try {
    new Script(brotliDecompressSync(Buffer.from(cold, "base64")).toString("utf8"));
  } catch {
    return "its cold half does not unpack";
  }
  try {
    new Script(hot);
  } catch {
    return "its hot half does not parse";
  }
  return null;
}

/** The text of the comment opened by `/*` + marker, without the \x01 of its escaped comment ends; null when it is not there or not closed. */
function commentText(file: Buffer, marker: string): string | null {
  const open = file.indexOf(`/*${marker}`);
  const start = open < 0 ? -1 : open + 2 + marker.length;
  const end = start < 0 ? -1 : file.indexOf("*/", start);
  return end < 0 ? null : file.toString("utf8", start, end).replaceAll("\x01", "");
}
