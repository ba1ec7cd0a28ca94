// Which folder of a DotagentSaver holds a thread: any string LangGraph takes as a thread id is one
// (an e-mail address, `user:42`, `a b`, `../x`, "", ids in any script), mapped to one folder name.
//
// THREAD: a thread id comes from the application, often from its users (a login, a chat id). A
// name built from it must never leave the saver's folder (`..`, `/`, `\`, a drive letter), never
// be a name the saver keeps for itself (`.deleting.*`, `checkpoints.log`), and two ids must never
// share a folder: not by the mapping, not on a case-insensitive file system (macOS, Windows: `Run`
// and `run`), not through Unicode normalisation (macOS's NFD), not on Windows' reserved names.
//
// The rule: an id made only of [a-z0-9_-] (not starting with `-`, at most 100 characters, not a
// Windows device name) is its own folder name, so uuids and readable ids stay readable; any other
// id is written byte by byte (UTF-8), every byte outside [a-z0-9_-] as `%XX` (uppercase hex), and
// "" as `%`. Names are then pure ASCII in which an uppercase letter only ever follows a `%`, so two
// names that differ differ in more than case; `%` never appears in a kept id, so a kept id never
// equals an encoded one. A name over 100 characters keeps its first 40 and ends with `~` and 32
// hex digits of the id's sha256 (`~` appears in no other name): 128 bits, no collision to expect.
// Each record in a thread's log names its thread id too, so a reader takes only its own records
// even then.
import { createHash } from "node:crypto";

const KEPT = /^[a-z0-9_][a-z0-9_-]{0,99}$/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const MAX_NAME = 100;

/** The folder name of a thread id (see the header): safe on every file system, one id one name. */
export function threadFolderName(id: string): string {
  if (KEPT.test(id) && !WINDOWS_DEVICE.test(id)) return id;
  if (id === "") return "%";
  const device = WINDOWS_DEVICE.test(id);
  let name = "";
  for (const byte of Buffer.from(id, "utf8")) {
    // A leading `-` (an option to many tools) and a device name's first letter are written too.
    const kept = name === "" ? !device && byte !== 0x2d && isKept(byte) : isKept(byte);
    name += kept ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    if (name.length > MAX_NAME) break;
  }
  if (name.length > MAX_NAME)
    name = `${name.slice(0, 40)}~${createHash("sha256").update(id, "utf8").digest("hex").slice(0, 32)}`;
  return name;
}

function isKept(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d;
}

/** The thread id a folder name was made from, or undefined for a cut name (its id is only in its log) or a name the rule never makes. */
export function threadIdOfFolderName(name: string): string | undefined {
  if (name === "%") return "";
  if (!/^([a-z0-9_-]|%[0-9A-F]{2})+$/.test(name)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < name.length; i++) {
    if (name[i] === "%") {
      bytes.push(Number.parseInt(name.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(name.charCodeAt(i));
  }
  const id = Buffer.from(bytes).toString("utf8");
  return threadFolderName(id) === name ? id : undefined;
}

/** Whether a name in the saver's folder can be a thread's folder (its own files start with `.`). */
export function isThreadFolderName(name: string): boolean {
  return !name.startsWith(".");
}
