// Preloaded into the built CLI by the torture suites: `node --import kill-at.mjs dist/dotagent.mjs …`.
// Inert unless one of these is set:
//   TORTURE_REPORT_FD=3     write "ready" when loaded, then one line per disk-changing call
//                           ("<n> <call> <path>") to fd 3, so the parent knows where a kill landed
//   TORTURE_KILL_AT=<n>     SIGKILL this process right before its n-th disk-changing call
//   TORTURE_KILL_AT=exit    SIGKILL it after all its work, as it exits (success never reported)
//   TORTURE_KILL_AT=<call>:<path part>[:<nth>]   SIGKILL it right before the nth (default first)
//                           such call, e.g. renameSync:/phase.json

//   TORTURE_PAUSE=<call>:<path part>:<ms>[:<nth>]   sleep <ms> right before the nth (default
//                           first) such call, to make a race happen on purpose; e.g. linkSync:/.lock:1500
//   TORTURE_FAULT=<calls>:<CODE>:<path part>[:<nth>]   make those calls (comma-separated names
//                           such as renameSync,promises.rename) fail with errno CODE when the path
//                           they touch contains <path part> (only the nth such call when given);
//                           e.g. renameSync:EIO:phase.json, renameSync:EIO:op.json:2
// It does not change what the CLI does in any other way.
import { errnoError, installFsHooks, rawWriteSync } from "./fs-hooks.mjs";

const reportFd = process.env.TORTURE_REPORT_FD === undefined ? undefined : Number(process.env.TORTURE_REPORT_FD);
const killAt = process.env.TORTURE_KILL_AT;
const fault = process.env.TORTURE_FAULT;
const pause = process.env.TORTURE_PAUSE;

function report(line) {
  if (reportFd === undefined) return;
  try {
    rawWriteSync(reportFd, `${line}\n`);
  } catch {
    // the parent closed its end; nothing to tell
  }
}

let faultCalls;
let faultCode;
let faultPath;
let faultNth;
if (fault) {
  const [calls, code, ...rest] = fault.split(":");
  faultCalls = new Set(calls.split(","));
  faultCode = code;
  if (rest.length >= 2 && /^\d+$/.test(rest[rest.length - 1])) faultNth = Number(rest.pop());
  faultPath = rest.join(":");
}

let pauseCall;
let pausePath;
let pauseMs = 0;
let pauseNth = 1;
if (pause) {
  const parts = pause.split(":");
  pauseCall = parts[0];
  const numeric = (s) => /^\d+$/.test(s);
  const withNth = parts.length >= 4 && numeric(parts[parts.length - 1]) && numeric(parts[parts.length - 2]);
  if (withNth) pauseNth = Number(parts.pop());
  pauseMs = Number(parts.pop());
  pausePath = parts.slice(1).join(":");
}

let killCall;
let killPath;
let killNth = 1;
if (killAt && killAt !== "exit" && !/^\d+$/.test(killAt)) {
  const parts = killAt.split(":");
  killCall = parts[0];
  if (parts.length >= 3 && /^\d+$/.test(parts[parts.length - 1])) killNth = Number(parts.pop());
  killPath = parts.slice(1).join(":");
}

if (reportFd !== undefined || killAt || fault || pause) {
  const killN = killAt && /^\d+$/.test(killAt) ? Number(killAt) : undefined;
  await installFsHooks((op) => {
    if (pauseCall !== undefined && op.name === pauseCall && op.detail.includes(pausePath) && --pauseNth === 0) {
      pauseCall = undefined;
      report(`pause ${op.n} ${op.detail}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pauseMs);
    }
    if (
      op.n === killN ||
      (killCall !== undefined && op.name === killCall && op.detail.includes(killPath) && --killNth === 0)
    ) {
      report(`kill ${op.n} ${op.detail}`);
      process.kill(process.pid, "SIGKILL");
    }
    report(`${op.n} ${op.detail}`);
    if (faultCalls?.has(op.name) && op.detail.includes(faultPath) && (faultNth === undefined || --faultNth === 0))
      throw errnoError(faultCode, op.name, op.detail.split(" ")[1]);
  });
  if (killAt === "exit") {
    process.on("exit", () => {
      report("kill exit");
      process.kill(process.pid, "SIGKILL");
    });
  }
  report("ready");
}
