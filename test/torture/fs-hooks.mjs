// Hooks every file-system call that changes the disk, for the torture suites. Used two ways:
// - by kill-at.mjs, preloaded into the built CLI (`node --import`), to SIGKILL the process right
//   before its n-th change of the disk, or to make one kind of call fail with an errno;
// - imported by the in-process fault-injection tests, to throw at the n-th change.
// It patches the `node:fs` object (what CommonJS dependencies such as tar
// call) and then syncBuiltinESMExports(), so ES-module named imports (`import { renameSync } from
// "node:fs"`, what dotagent's own code uses) see the same wrappers. Reads are never hooked.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { constants as osConstants } from "node:os";

const WRITE_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_TRUNC;

/** Whether an open() flag argument can change the disk. */
function writesWith(flags) {
  if (flags === undefined || flags === null) return false;
  if (typeof flags === "number") return (flags & WRITE_FLAGS) !== 0;
  return /[wax+]/.test(String(flags));
}

// name → which argument holds the flags (open only), or -1. Only calls that change the disk.
const SYNC = {
  openSync: 1,
  writeSync: -1,
  writevSync: -1,
  writeFileSync: -1,
  appendFileSync: -1,
  fsyncSync: -1,
  fdatasyncSync: -1,
  renameSync: -1,
  linkSync: -1,
  symlinkSync: -1,
  unlinkSync: -1,
  rmSync: -1,
  rmdirSync: -1,
  mkdirSync: -1,
  mkdtempSync: -1,
  copyFileSync: -1,
  cpSync: -1,
  ftruncateSync: -1,
  truncateSync: -1,
  chmodSync: -1,
  fchmodSync: -1,
  chownSync: -1,
  fchownSync: -1,
};
const CALLBACK = {
  open: 1,
  write: -1,
  writev: -1,
  writeFile: -1,
  appendFile: -1,
  fsync: -1,
  fdatasync: -1,
  rename: -1,
  link: -1,
  symlink: -1,
  unlink: -1,
  rm: -1,
  rmdir: -1,
  mkdir: -1,
  mkdtemp: -1,
  copyFile: -1,
  cp: -1,
  ftruncate: -1,
  truncate: -1,
  chmod: -1,
  fchmod: -1,
};
const PROMISES = {
  open: 1,
  writeFile: -1,
  appendFile: -1,
  rename: -1,
  link: -1,
  symlink: -1,
  unlink: -1,
  rm: -1,
  rmdir: -1,
  mkdir: -1,
  mkdtemp: -1,
  copyFile: -1,
  cp: -1,
  truncate: -1,
  chmod: -1,
};
const HANDLE = {
  write: -1,
  writev: -1,
  writeFile: -1,
  appendFile: -1,
  sync: -1,
  datasync: -1,
  truncate: -1,
  chmod: -1,
};

let installed = null;

/** fd → the path it was opened with, so a write or fsync can be described (and matched) by file. */
const fdPaths = new Map();

/** Calls whose second argument is a path too; for the others it is data, flags or a mode. */
const TWO_PATHS = new Set(["rename", "link", "symlink", "copyFile", "cp"]);

function describe(name, args, self) {
  const base = name.replace(/^(promises|handle)\./, "").replace(/Sync$/, "");
  const parts = [];
  if (self && typeof self.fd === "number") parts.push(fdPaths.get(self.fd) ?? `fd${self.fd}`);
  const first = args[0];
  if (typeof first === "string") parts.push(first);
  else if (first instanceof URL) parts.push(first.pathname);
  else if (typeof first === "number" && !(self && typeof self.fd === "number"))
    parts.push(fdPaths.get(first) ?? `fd${first}`);
  if (TWO_PATHS.has(base) && typeof args[1] === "string") parts.push(args[1]);
  return `${name} ${parts.join(" ")}`.trim();
}

/**
 * Installs the hooks. `onOp(op)` runs before every disk-changing call with
 * `{ n, name, args, detail }`; it may throw (the call then fails with that error, as an async call
 * would reject) or never return (SIGKILL). Returns a function that uninstalls them.
 */
export async function installFsHooks(onOp) {
  if (installed !== null) throw new Error("fs hooks are already installed");
  let n = 0;
  const saved = [];
  const guard = (name, args, flagsAt, self) => {
    if (flagsAt >= 0 && !writesWith(args[flagsAt])) return;
    // The CLI's own output to stdout and stderr does not change the project.
    if ((name === "writeSync" || name === "write") && typeof args[0] === "number" && args[0] <= 2) return;
    n += 1;
    onOp({ n, name, args, detail: describe(name, args, self) });
  };
  const remember = (fd, path) => {
    if (typeof fd === "number" && (typeof path === "string" || path instanceof URL))
      fdPaths.set(fd, String(path instanceof URL ? path.pathname : path));
  };
  const patch = (target, table, label, mode) => {
    for (const [name, flagsAt] of Object.entries(table)) {
      const original = target[name];
      if (typeof original !== "function") continue;
      saved.push([target, name, original]);
      const full = `${label}${name}`;
      let wrapper;
      if (mode === "sync") {
        wrapper = function (...args) {
          guard(full, args, flagsAt, this);
          const result = original.apply(this, args);
          if (name === "openSync") remember(result, args[0]);
          return result;
        };
      } else if (mode === "callback") {
        wrapper = function (...args) {
          const callback = args[args.length - 1];
          try {
            guard(full, args, flagsAt, this);
          } catch (error) {
            if (typeof callback === "function") return void process.nextTick(callback, error);
            throw error;
          }
          if (name === "open" && typeof callback === "function") {
            args[args.length - 1] = (error, fd) => {
              if (!error) remember(fd, args[0]);
              callback(error, fd);
            };
          }
          return original.apply(this, args);
        };
      } else {
        wrapper = async function (...args) {
          guard(full, args, flagsAt, this);
          const result = await original.apply(this, args);
          if (full === "promises.open") remember(result?.fd, args[0]);
          return result;
        };
      }
      Object.defineProperty(wrapper, "name", { value: name });
      target[name] = wrapper;
    }
  };
  patch(fs, SYNC, "", "sync");
  patch(fs, CALLBACK, "", "callback");
  patch(fs.promises, PROMISES, "promises.", "promise");
  // FileHandle methods live on a prototype we can only reach through a handle.
  const probe = await fs.promises.open(process.execPath, "r");
  const handleProto = Object.getPrototypeOf(probe);
  await probe.close();
  patch(handleProto, HANDLE, "handle.", "promise");
  syncBuiltinESMExports();
  installed = saved;
  return function uninstall() {
    for (const [target, name, original] of saved.reverse()) target[name] = original;
    syncBuiltinESMExports();
    installed = null;
  };
}

/** An Error like the ones node:fs throws, with `code`, `errno` and `syscall`. */
export function errnoError(code, syscall, path) {
  const errno = -(osConstants.errno[code] ?? 5);
  const error = new Error(`${code}: injected fault, ${syscall}${path ? ` '${path}'` : ""}`);
  return Object.assign(error, { code, errno, syscall, ...(path ? { path } : {}) });
}

/** The original writeSync, never hooked: for the preload's own reports. */
export const rawWriteSync = fs.writeSync;
