// `dotagent doctor` as data: each check is a value with a status, one line of what was found and
// the fix. The command gathers the facts (disk, process); the judgement that needs no disk lives
// here so it is tested with tables.

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  /** Short, stable name: node, install, helper, hook, settings, state, lock, writable. */
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do; null when nothing needs doing. */
  readonly fix: string | null;
}

/** The engines range of package.json (`>=20.19`), as the oldest Node.js dotagent runs on. */
export const MIN_NODE = "20.19.0";

export function parseVersion(text: string): [number, number, number] | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/** -1, 0 or 1; a version that does not parse sorts before every other. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

export function checkNode(running: string, minimum: string = MIN_NODE): Check {
  const ok = compareVersions(running, minimum) >= 0;
  const shown = minimum.replace(/\.0$/, "");
  return ok
    ? { name: "node", status: "ok", message: `Node.js ${running.replace(/^v/, "")} (dotagent needs ${shown} or later)`, fix: null }
    : { name: "node", status: "fail", message: `Node.js ${running.replace(/^v/, "")} is older than ${shown}, which dotagent needs`, fix: `install Node.js ${shown} or later (22 or 24 LTS)` };
}

/** The installed helper against the running CLI: equal is fine, anything else means run install. */
export function checkHelperVersion(where: string, installed: string | null, cli: string, upgradeFix = "run `dotagent install` (it updates the files you did not change)"): Check {
  if (installed === cli) return { name: "helper", status: "ok", message: `${where}: helper ${installed}, the same as this CLI`, fix: null };
  const what = installed === null ? "built before 0.1.0" : installed;
  const direction = installed !== null && compareVersions(installed, cli) > 0 ? "newer than" : "older than";
  return {
    name: "helper",
    status: "fail",
    message: `${where}: helper ${what} is ${direction} this CLI (${cli}): an upgrade is due`,
    fix: direction === "older than" ? upgradeFix : "upgrade the dotagent CLI (`npm install -g dotagent-workflow`), or run `dotagent install` with the CLI you mean to use",
  };
}

/** 0 when nothing failed (warnings are facts, not failures), else 1. */
export function doctorExitCode(checks: readonly Check[]): 0 | 1 {
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
