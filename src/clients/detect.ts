// Which other clients a person seems to use here, for one line after a Claude Code install
// (SPEC §22): a client's command on PATH or its project folder. Detection only suggests: it never
// installs anything, and a client dotagent is already installed for is not named. Doctor reads the
// same manifests to know which clients to check.
import { existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ADAPTERS, DEFAULT_CLIENT, type ClientAdapter, type ClientId } from "./index.js";

interface Seen {
  readonly client: ClientId;
  readonly name: string;
  /** Why it is named: the command on PATH, or the folder in the project. */
  readonly why: string;
}

/** The clients other than Claude Code (the default, whose install is looked at in its own way). */
const OTHERS = ADAPTERS.filter((a) => a !== DEFAULT_CLIENT);

function onPath(command: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    if (dir === "") return false;
    try {
      return statSync(join(dir, command)).isFile();
    } catch {
      return false;
    }
  });
}

/** Whether dotagent is installed for `client` in the project at `root` (its install manifest), for doctor. */
export const installedHere = (client: ClientAdapter, root: string): boolean => existsSync(join(root, client.manifest));

export function otherClientsSeen(root: string, path = process.env.PATH ?? ""): Seen[] {
  const seen: Seen[] = [];
  for (const c of OTHERS) {
    if (installedHere(c, root)) continue;
    const why = existsSync(join(root, c.folder))
      ? c.folder
      : onPath(c.command, path)
        ? `\`${c.command}\` on PATH`
        : null;
    if (why !== null) seen.push({ client: c.id, name: c.fullName, why });
  }
  return seen;
}
