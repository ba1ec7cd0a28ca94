// The archive code (node-tar) loads only when an operation archives, restores or rolls back. The
// library imports the module; the CLI supplies its cold half instead (one string compiled on
// demand, src/cli/load-cold.ts), so `status` and the hook never pay for tar.
export type ArchiveModule = typeof import("../archive/index.js");

let load: () => Promise<ArchiveModule> = () => import("../archive/index.js");

/** The CLI entry points this at its cold half before running a command. */
export function useArchiveLoader(loader: () => Promise<ArchiveModule>): void {
  load = loader;
}

export function loadArchive(): Promise<ArchiveModule> {
  return load();
}
