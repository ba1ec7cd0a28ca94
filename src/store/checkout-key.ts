// The checkout's key: the secret that seals the records carrying the person's authority
// (src/core/authority.ts has the threat). Guarantees:
// - it lives outside the repository and outside everything install writes: in the user's state
//   folder (DOTAGENT_STATE_HOME, else $XDG_STATE_HOME/dotagent, else ~/.local/state/dotagent),
//   `checkouts/<digest of the project's real path>.json`, mode 0600 in a 0700 folder; git never
//   carries it, so a record sealed in one checkout does not verify in a clone;
// - it is bound to this checkout, not only to its path: the file names the project folder's
//   device and inode, and a folder made again at the same path (a fresh clone where an old one
//   was) gets a new key, so the old checkout's records are history there too;
// - created once: two processes creating it at once agree on one key (an exclusive link of a
//   finished temp file; the loser reads the winner's);
// - never a crash: a state folder that cannot be read or written gives "no key" with the reason,
//   and nothing is sealed (the person is then asked again, never taken as having answered).
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
  fsyncSync,
} from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { sha256Hex } from "../core/sha256.js";

const crypto = () => process.getBuiltinModule("node:crypto");

export type CheckoutKey = { ok: true; key: Buffer; file: string } | { ok: false; reason: string };

/** The folder of dotagent's machine-local state for this user (never inside a project). */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.DOTAGENT_STATE_HOME;
  if (explicit !== undefined && explicit !== "" && isAbsolute(explicit)) return explicit;
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "dotagent");
  // $HOME is what os.homedir() answers first (libuv reads it before the password database), and
  // reading it here spares loading node:os at every start (the code cache's folder is here too).
  const home = env === process.env && env.HOME ? env.HOME : homedir();
  return join(home, ".local", "state", "dotagent");
}

interface KeyFile {
  format: 1;
  root: string;
  dev: number;
  ino: number;
  key: string;
  created_at: string;
}

const cache = new Map<string, CheckoutKey>();

/** The key of the checkout at `root`, created when `create` and there is none (or the folder is a new one at the same path). */
export function checkoutKey(root: string, options: { create: boolean } = { create: true }): CheckoutKey {
  let real: string;
  let folder: { dev: number; ino: number };
  try {
    real = realpathSync.native(root);
    const s = statSync(real);
    folder = { dev: s.dev, ino: s.ino };
  } catch (error) {
    return {
      ok: false,
      reason: `the project folder cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
  const cached = cache.get(real);
  if (cached?.ok) return cached;
  const dir = join(stateHome(), "checkouts");
  // The name's digest without node:crypto, which the SessionStart hook (it makes sure the key is
  // there) would load for this alone (~5 ms; src/core/sha256.ts).
  const file = join(dir, `${sha256Hex(real).slice(0, 32)}.json`);
  const found = readKeyFile(file);
  if (found !== undefined && found.root === real && found.dev === folder.dev && found.ino === folder.ino) {
    const key = { ok: true as const, key: Buffer.from(found.key, "base64"), file };
    cache.set(real, key);
    return key;
  }
  if (!options.create) return { ok: false, reason: `this checkout has no key yet (${file})` };
  const made = makeKeyFile(
    dir,
    file,
    {
      format: 1,
      root: real,
      dev: folder.dev,
      ino: folder.ino,
      key: crypto().randomBytes(32).toString("base64"),
      created_at: new Date().toISOString(),
    },
    found !== undefined,
  );
  if (made.ok) cache.set(real, made);
  return made;
}

function readKeyFile(file: string): KeyFile | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const value = JSON.parse(buffer.subarray(0, n).toString("utf8")) as KeyFile;
    return value?.format === 1 &&
      typeof value.root === "string" &&
      typeof value.key === "string" &&
      typeof value.dev === "number" &&
      typeof value.ino === "number" &&
      Buffer.from(value.key, "base64").length === 32
      ? value
      : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Writes the key file whole (temp, fsync), then links it into place: exclusive, so two makers agree. */
function makeKeyFile(dir: string, file: string, content: KeyFile, replaceStale: boolean): CheckoutKey {
  const temp = `${file}.${process.pid}.${crypto().randomBytes(6).toString("hex")}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, `${JSON.stringify(content)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // A key file of an older folder at this path (a checkout made again): replaced.
    if (replaceStale) {
      try {
        unlinkSync(file);
      } catch {
        // gone already: another process replaced it
      }
    }
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const other = readKeyFile(file);
      if (other === undefined || other.root !== content.root || other.dev !== content.dev || other.ino !== content.ino)
        return { ok: false, reason: `${file} is not this checkout's key` };
      return { ok: true, key: Buffer.from(other.key, "base64"), file };
    }
    return { ok: true, key: Buffer.from(content.key, "base64"), file };
  } catch (error) {
    return {
      ok: false,
      reason: `${dir} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
  }
}

/** HMAC-SHA256 of `text` under the key, as 22 base64url characters (128 bits). */
export function sealWith(key: Buffer, text: string): string {
  return crypto().createHmac("sha256", key).update(text).digest("base64url").slice(0, 22);
}

/** Compares two seals in constant time. */
export function sameSeal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto().timingSafeEqual(x, y);
}
