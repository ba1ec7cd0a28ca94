// What callers learn about one archive: the listing row of `dotagent archive list`.
import { isPhase, PHASE_STATUSES, type Phase, type PhaseStatus } from "../core/phases.js";
import { archiveRelativePath } from "./archive-layout.js";
import type { Manifest } from "./manifest.js";

export interface ArchiveInfo {
  /** File name in memory/state/.archive/, what `archive restore NAME` takes. */
  readonly name: string;
  /** Relative to the project root, with `/`: `memory/state/.archive/<name>`. */
  readonly path: string;
  readonly workflow_id: string | null;
  readonly phase: Phase | null;
  readonly phase_status: PhaseStatus | null;
  /** ISO 8601, from the manifest. */
  readonly created_at: string | null;
  readonly reason: string | null;
  /** Bytes of the .tar.gz file. */
  readonly size: number;
  /** Set when the manifest cannot be read; the other manifest fields are then null. */
  readonly error?: string;
}

export function describeArchive(name: string, size: number, manifest: Manifest): ArchiveInfo {
  return {
    name,
    path: archiveRelativePath(name),
    workflow_id: manifest.workflow_id,
    phase: isPhase(manifest.phase) ? manifest.phase : null,
    phase_status: isPhaseStatus(manifest.phase_status) ? manifest.phase_status : null,
    created_at: manifest.created_at,
    reason: manifest.reason,
    size,
  };
}

/** An archive without a usable manifest: `error` says why it cannot be read (null: none was expected). */
export function describeArchiveWithoutManifest(name: string, size: number, error: string | null): ArchiveInfo {
  const info: ArchiveInfo = {
    name,
    path: archiveRelativePath(name),
    workflow_id: null,
    phase: null,
    phase_status: null,
    created_at: null,
    reason: null,
    size,
  };
  return error === null ? info : { ...info, error };
}

function isPhaseStatus(value: unknown): value is PhaseStatus {
  return typeof value === "string" && (PHASE_STATUSES as readonly string[]).includes(value);
}
