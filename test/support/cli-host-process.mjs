// The CLI host (test/support/cli-host.ts): one Node process that runs the BUILT CLI,
// dist/dotagent.mjs, once per request, so a test's CLI call costs a fresh instance of the bundle's
// hot half (compiled once per host and file: hotHalfOf; ~10 ms of CPU a call, issue 41) instead of
// a Node process (~210 ms on a 2-core machine).
//
// Each call gets what a spawned CLI would: its argv, its working folder, exactly its environment,
// its stdin (a hook's JSON input), stdout and stderr of its own,
// and an exit code; and a fresh instance of every module of the bundle (the hot half's function
// run again; any other file imported again under a new URL), so no module-level cache outlives a call. What a process exit would do is done at the end
// of each call: the `exit` listeners the call added run, then every listener it added is removed,
// and process.stdout/stderr are put back as they were. The bundle's only process.exit
// (src/cli/main.ts) ends the call instead of the process.
//
// Protocol: one JSON request per line on fd 3 ({ id, cli, cwd, args, env }), one JSON response per
// line on fd 4 ({ id, code, stdout, stderr }); { id, cli, cwd, args, env, input }, where input is the call's stdin.
import fs from "node:fs";
import { Socket } from "node:net";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import zlib from "node:zlib";
import { jsonLines } from "./json-lines.mjs";

const { writeSync, readSync, fstatSync } = fs;
const realExit = process.exit;
const streams = {
  stdout: Object.getOwnPropertyDescriptor(process, "stdout"),
  stderr: Object.getOwnPropertyDescriptor(process, "stderr"),
};
const EVENTS = [
  "exit",
  "beforeExit",
  "SIGINT",
  "SIGTERM",
  "SIGHUP",
  "uncaughtException",
  "unhandledRejection",
  "warning",
];
let calls = 0;

/**
 * The call's stdin as spawnSync gives it, a pipe holding `input` then its end (read through
 * fs.readSync, as src/store/read-file.ts reads a hook's input), and the text it wrote to fd 1 or 2,
 * directly (src/cli/std-write.ts) or through process.stdout/stderr.
 */
function capture(input) {
  const stdin = Buffer.from(input ?? "");
  let read = 0;
  fs.readSync = (fd, buffer, ...rest) => {
    if (fd !== 0) return readSync(fd, buffer, ...rest);
    const [offset = 0, length = buffer.byteLength - offset] =
      typeof rest[0] === "object" && rest[0] !== null ? [rest[0].offset, rest[0].length] : rest;
    const n = stdin.copy(buffer, offset, read, Math.min(stdin.length, read + length));
    read += n;
    return n;
  };
  // A pipe's stat (what fd 3 is), so stdin reads as a pipe, not as the host's /dev/null.
  fs.fstatSync = (fd, ...rest) => fstatSync(fd === 0 ? 3 : fd, ...rest);
  const out = { 1: [], 2: [] };
  const take = (fd, data, offsetOrPosition, length) => {
    const bytes =
      typeof data === "string"
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength).subarray(
            offsetOrPosition ?? 0,
            length === undefined ? undefined : (offsetOrPosition ?? 0) + length,
          );
    out[fd].push(Buffer.from(bytes));
    return bytes.length;
  };
  fs.writeSync = (fd, data, ...rest) => (fd === 1 || fd === 2 ? take(fd, data, ...rest) : writeSync(fd, data, ...rest));
  const streamWrite = (fd) =>
    function (chunk, encoding, callback) {
      if (typeof encoding === "function") callback = encoding;
      out[fd].push(
        typeof chunk === "string"
          ? Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8")
          : Buffer.from(chunk),
      );
      if (typeof callback === "function") process.nextTick(callback);
      return true;
    };
  const saved = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = streamWrite(1);
  process.stderr.write = streamWrite(2);
  return () => {
    fs.writeSync = writeSync;
    fs.readSync = readSync;
    fs.fstatSync = fstatSync;
    Object.defineProperty(process, "stdout", streams.stdout);
    Object.defineProperty(process, "stderr", streams.stderr);
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    return { stdout: Buffer.concat(out[1]).toString("utf8"), stderr: Buffer.concat(out[2]).toString("utf8") };
  };
}

function setEnv(env) {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) process.env[key] = value;
}

/**
 * A call "on a terminal" (`terminal`: { columns, stdin }): process.stdout reads as a terminal of
 * that width (isTTY, columns), and process.stdin too unless `stdin` is false (stdin from
 * /dev/null, as Claude Code's Bash tool runs a command). What the CLI asks of a terminal is
 * those two (src/cli/person-next.ts, table.ts, output.ts); a real pseudo-terminal is what
 * test/status-people.test.ts's `script` runs check. Undone when the call ends.
 */
function asTerminal(terminal) {
  if (terminal === undefined) return () => {};
  const saved = [process.stdout, process.stdin].map((stream) => ({
    stream,
    own: ["isTTY", "columns"].map((key) => [key, Object.getOwnPropertyDescriptor(stream, key)]),
  }));
  const set = (stream, key, value) =>
    Object.defineProperty(stream, key, { value, configurable: true, writable: true, enumerable: true });
  set(process.stdout, "isTTY", true);
  set(process.stdout, "columns", terminal.columns);
  if (terminal.stdin !== false) set(process.stdin, "isTTY", true);
  return () => {
    for (const { stream, own } of saved)
      for (const [key, descriptor] of own)
        if (descriptor === undefined) delete stream[key];
        else Object.defineProperty(stream, key, descriptor);
  };
}

async function run({ cli, cwd, args, env, input, terminal }) {
  const listeners = new Map(EVENTS.map((e) => [e, process.listeners(e)]));
  // process.stdout and stderr are the host's own streams: what a call adds to them (`once` listens
  // for a closed pipe on stdout) goes with the call, as it would with its process.
  const streamListeners = [process.stdout, process.stderr].map((stream) => ({
    stream,
    before: new Map(stream.eventNames().map((e) => [e, stream.listeners(e)])),
  }));
  const home = process.cwd();
  setEnv(env);
  process.chdir(cwd);
  process.argv = [process.execPath, cli, ...args];
  process.exitCode = undefined;
  const finish = capture(input);
  const undoTerminal = asTerminal(terminal);
  let code;
  try {
    code = await new Promise((resolve, reject) => {
      process.exit = (c) => resolve(c ?? process.exitCode ?? 0);
      const hot = hotHalfOf(cli);
      if (hot !== undefined)
        Promise.resolve()
          .then(() => hot.script.runInThisContext()(builtin, hot.filename, hot.url, hot.importer, () => hot.cold))
          .catch(reject);
      else
        instantiate(cli)
          .then((module) => module.evaluate())
          .catch(reject);
    });
    // What exiting would have run: the call's own exit listeners.
    for (const listener of process.listeners("exit")) if (!listeners.get("exit").includes(listener)) listener(code);
  } finally {
    undoTerminal();
    process.exit = realExit;
    process.exitCode = undefined;
    for (const [event, before] of listeners)
      for (const listener of process.listeners(event))
        if (!before.includes(listener)) process.removeListener(event, listener);
    for (const { stream, before } of streamListeners)
      for (const event of stream.eventNames())
        for (const listener of stream.listeners(event))
          if (!(before.get(event) ?? []).includes(listener)) stream.removeListener(event, listener);
    process.chdir(home);
  }
  return { code, ...finish() };
}

/**
 * A fresh instance of the CLI file's module, as `import(url?call=N)` would give (a new module
 * record, so no module-level state outlives a call), but compiled from V8's code cache after the
 * first call: a 750 kB bundle's parse and compile is most of a call's cost (about 25 of 30 ms on
 * a 2-core machine; with the cache about 10). The file is read again whenever its stamp changes
 * (stampOf), so a rebuilt or reinstalled helper is what runs. Its static imports are Node's
 * built-ins (the bundle's banner); a dynamic import resolves against the file's own URL, as it would in a process of its own.
 * Needs --experimental-vm-modules (cli-host-worker.mjs starts the host with it).
 */
const compiled = new Map();
async function instantiate(cli) {
  // A function V8 compiled from a code cache has lost its module's dynamic-import hook (Node 20:
  // "A dynamic import callback was not specified"), so the file's `import(` calls (the bundle's
  // cold half, the Agent SDK) go through a global of the host's instead, resolved the same way.
  const known = compiled.get(cli);
  const stamp = stampOf(cli);
  const source =
    known !== undefined && known.stamp === stamp
      ? known.source
      : fs
          .readFileSync(cli, "utf8")
          .replace(/^#!.*/, "")
          .replace(/(^|[^\w$.])import\(/g, "$1globalThis.__cliHostImport(");
  const href = pathToFileURL(cli).href;
  const url = `${href}?call=${++calls}`;
  const cachedData = known?.source === source ? known.cachedData : undefined;
  const module = new vm.SourceTextModule(source, {
    identifier: url,
    cachedData,
    initializeImportMeta(meta) {
      meta.url = url;
    },
  });
  globalThis.__cliHostImport = (specifier) => import(new URL(specifier, href).href);
  await module.link(async (specifier) => {
    const namespace = await import(specifier);
    const names = Object.keys(namespace);
    return new vm.SyntheticModule(names, function () {
      for (const name of names) this.setExport(name, namespace[name]);
    });
  });
  // V8 makes a module's cache before it runs (not after): from the first call's, once.
  if (cachedData === undefined || module.cachedDataRejected === true)
    compiled.set(cli, { stamp, source, cachedData: module.createCachedData() });
  return module;
}

/**
 * dotagent's own bundle, run as its loader (src/cli/boot.ts) would run it but with the loader's
 * work done once per file stamp: the hot half taken out of its block comment and compiled, here
 * with no code cache (the first call compiles it, the next ones find it compiled). Each call runs
 * the compiled script again, which makes a new function and so a fresh instance of every module
 * in it: no module-level state outlives a call, as with a process of its own. What the loader
 * itself does at each start (reading its file, taking the halves out, V8's code cache on disk) is
 * not exercised here; every spawned CLI and hook runs it (test/code-cache.test.ts, test/build.test.ts,
 * the real clients' hooks). Undefined for a file without the loader's markers (any other script),
 * which runs as a module (instantiate).
 */
const hotHalves = new Map();
function hotHalfOf(cli) {
  const stamp = stampOf(cli);
  const known = hotHalves.get(cli);
  if (known?.stamp === stamp) return known.hot;
  const file = fs.readFileSync(cli);
  const held = (marker) => {
    const start = file.indexOf(`/*${marker}`);
    const end = start < 0 ? -1 : file.indexOf("*/", start + 2 + marker.length);
    return end < 0 ? null : file.toString("utf8", start + 2 + marker.length, end).replaceAll("\x01", "");
  };
  const [hotText, cold] = [held("\x01H"), held("\x01C")];
  let hot;
  if (file.includes("/*\x01L*/") && hotText !== null && cold !== null) {
    const url = pathToFileURL(cli).href;
    hot = {
      script: new vm.Script(hotText, { filename: cli }),
      filename: cli,
      url,
      cold,
      importer: (specifier) => import(new URL(specifier, url).href),
    };
  }
  hotHalves.set(cli, { stamp, hot });
  return hot;
}

/**
 * What each call does again though its bytes are the same, done once per host (issue 41): the
 * bundle's cold half, unpacked (brotli) and compiled by every call that needs it (a process does
 * it once: src/cli/load-cold.ts), and the hot half of each installed copy of the helper (a test
 * file's calls name dozens of copies, each the bundle's bytes): 15-40 ms of CPU each time. A
 * script whose text was compiled before is that script again, as a second call at one path
 * finds it: each run of it makes a fresh instance of every module, so no module state outlives a
 * call. Only its name in a stack trace (`--debug`) is the first file's.
 */
const BIG = 64 * 1024;
const RealScript = vm.Script;
const compiledText = new Map();
vm.Script = class Script extends RealScript {
  constructor(code, options) {
    const reuse = typeof code === "string" && code.length >= BIG && options?.cachedData === undefined;
    const compiled = reuse ? compiledText.get(code) : undefined;
    if (compiled !== undefined) return compiled;
    super(code, options);
    if (reuse) compiledText.set(code, this);
  }
};
const realBrotli = zlib.brotliDecompressSync;
const unpacked = new Map();
zlib.brotliDecompressSync = (input, options) => {
  if (!Buffer.isBuffer(input) || options !== undefined) return realBrotli(input, options);
  const key = input.toString("latin1");
  let out = unpacked.get(key);
  if (out === undefined) unpacked.set(key, (out = realBrotli(input)));
  return Buffer.from(out);
};

/** The hot half's require, as dotagent.mjs hands it in: built-ins are all it asks for. */
const builtin = (id) => process.getBuiltinModule(id);

/**
 * The file as the system knows it (inode, size, change and modification times in nanoseconds): a
 * rebuilt, reinstalled or patched CLI has another, and is read again. Reading and preparing the
 * 720 kB file took more of a call than compiling it from the code cache (issue 41).
 */
function stampOf(file) {
  const s = fs.statSync(file, { bigint: true });
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** Whether a timer or immediate is pending that no request is waiting on (the host's own are unref'd). */
function leftWork() {
  const kinds = process.getActiveResourcesInfo();
  return kinds.includes("Timeout") || kinds.includes("Immediate");
}

// Requests one at a time, in order.
let queue = Promise.resolve();
const input = new Socket({ fd: 3, readable: true, writable: false });
const output = new Socket({ fd: 4, readable: false, writable: true });
input.on(
  "data",
  jsonLines((request) => {
    queue = queue.then(async () => {
      let response;
      try {
        response = { id: request.id, ...(await run(request)) };
      } catch (error) {
        response = { id: request.id, failed: String(error?.stack ?? error) };
      }
      // A call that left a timer running, or a host grown large, retires the host: the worker
      // starts a new one for the next call, so no call's leftovers run inside another. An
      // Immediate the call queued runs first, before this answer: one that only finds its work
      // done is no leftover (`once`'s command runner, src/store/run-command.ts, polls its pipes
      // one loop turn after the child's exit, and the child's close settles the call first: a
      // process would exit at that turn; retiring the host for it cost a host start per `once`).
      // One that queues another still shows, and retires the host.
      await new Promise((settled) => setImmediate(settled));
      if (leftWork() || process.memoryUsage.rss() > 1024 * 1024 * 1024) response.retire = true;
      output.write(`${JSON.stringify(response)}\n`);
    });
  }),
);
input.on("end", () => realExit(0));
