// Which other clients a person seems to use here, for one line after a Claude Code install
// (SPEC §22): a client's command on PATH or its project folder. Detection only suggests: it never
// installs anything, and a client dotagent is already installed for is not named. Doctor reads the
// same manifests to know which clients to check.
import { existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";

interface Seen {
  readonly client: "copilot" | "codex";
  readonly name: string;
  /** Why it is named: the command on PATH, or the folder in the project. */
  readonly why: string;
}

const CLIENTS = [
  {
    client: "copilot",
    name: "GitHub Copilot CLI",
    command: "copilot",
    folder: ".github/copilot-instructions.md",
    manifest: ".github/.dotagent-copilot-install.json",
  },
  { client: "codex", name: "Codex CLI", command: "codex", folder: ".codex", manifest: ".codex/.dotagent-install.json" },
] as const;

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

/** The clients other than Claude Code that dotagent is installed for in this project (their install manifests), for doctor. */
export function otherClientsInstalled(root: string): Array<Seen["client"]> {
  return CLIENTS.filter((c) => existsSync(join(root, c.manifest))).map((c) => c.client);
}

export function otherClientsSeen(root: string, path = process.env.PATH ?? ""): Seen[] {
  const seen: Seen[] = [];
  for (const c of CLIENTS) {
    if (existsSync(join(root, c.manifest))) continue;
    const why = existsSync(join(root, c.folder))
      ? c.folder
      : onPath(c.command, path)
        ? `\`${c.command}\` on PATH`
        : null;
    if (why !== null) seen.push({ client: c.client, name: c.name, why });
  }
  return seen;
}
