// The archive module's public API (CONTRACT §8). The CLI loads this module with a dynamic
// import, so node-tar is only loaded by commands that archive or restore.
export type { ArchiveInfo } from "./archive-info.js";
export { ARCHIVE_DIR, MANIFEST_NAME } from "./archive-layout.js";
export { createArchive, type CreateArchiveOptions, type CreatedArchive } from "./create-archive.js";
export { verifyArchive, type VerifyResult } from "./read-archive.js";
export { clearLiveState } from "./clear-live-state.js";
export { pruneArchives, DEFAULT_KEEP, type PruneResult } from "./prune-archives.js";
export { listArchives } from "./list-archives.js";
export { restoreArchive, type RestoreArchiveOptions, type RestoreResult } from "./restore-archive.js";
export { DEFAULT_LIMITS, type ArchiveLimits } from "./entry-policy.js";
