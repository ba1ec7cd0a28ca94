// Who runs this process, as far as the system can tell (src/core/authority.ts judges it): the
// client markers in this process's environment and in each ancestor's environment as it was
// started (/proc/<pid>/environ), and the client program itself among the ancestors
// (/proc/<pid>/cmdline). A model's line that clears a variable (`env -u CLAUDECODE …`), starts a
// new shell or execs past its shell still runs under the client, which it cannot change. What
// escapes: a process that leaves the tree (a double fork re-parented to init), which only a line
// outside the allow grammar can start (the person is asked, unless a permissive mode lets it
// run). Without /proc (macOS) only the process's own environment is read. Read lazily, once.
import { readFileSync } from "node:fs";
import { clientIn, markersIn, type CallerFacts, type Client } from "../core/authority.js";

/** How far up the process tree to look (a shell, a wrapper, npx… rarely go past ten). */
const MAX_DEPTH = 40;

let facts: CallerFacts | undefined;

export function callerFacts(): CallerFacts {
  facts ??= { own: markersIn(process.env), ancestors: ancestorMarkers(process.ppid) };
  return facts;
}

function ancestorMarkers(start: number): Client[] {
  const found: Client[] = [];
  let pid = start;
  // pid 1 too: inside Codex's sandbox (its own pid namespace) the sandbox helper is pid 1.
  for (let depth = 0; depth < MAX_DEPTH && pid >= 1; depth++) {
    const env = environOf(pid);
    if (env !== undefined) for (const client of markersIn(env)) if (!found.includes(client)) found.push(client);
    // The client itself: a line that execs past its shell (`exec env -u CLAUDECODE …`) runs as
    // the client's own child, whose environment carries no marker.
    const client = clientIn(commandLineOf(pid));
    if (client !== undefined && !found.includes(client)) found.push(client);
    if (pid === 1) break;
    const parent = parentOf(pid);
    if (parent === undefined || parent === pid) break;
    pid = parent;
  }
  return found;
}

function commandLineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

function environOf(pid: number): Record<string, string> | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/environ`, "latin1");
    const env: Record<string, string> = {};
    for (const pair of text.split("\0")) {
      const eq = pair.indexOf("=");
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    return env;
  } catch {
    return undefined; // no /proc, another user's process, or gone
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}
