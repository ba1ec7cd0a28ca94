// A rollback cut off after its commit point is finished by the next command that takes the lock,
// before that command reads the state (loaded only when memory/state/.rollback exists).
import { finishRollback } from "../store/rollback-journal.js";
import type { ProjectPaths } from "../store/project.js";
import { loadArchive } from "./archive-module.js";

export async function finishCutOffRollback(
  paths: ProjectPaths,
  now: Date,
  note: (line: string) => void,
): Promise<void> {
  const archive = await loadArchive();
  const { journal, archive: name } = await finishRollback(paths, archive, now);
  note(
    `dotagent: finished a rollback that was cut off (to ${journal.phase.current_phase})${name ? `; what it moved is in ${name}` : ""}`,
  );
}
