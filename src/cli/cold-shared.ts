// What the cold half of the built CLI takes from the hot half instead of carrying its own copy:
// the values of the modules both halves use (src/core, src/store, src/ops, zod…), one object per
// module. The build writes this module's contents (scripts/build-cold-sharing.mjs: an import of
// each shared module and the names the cold half imports from it); load-cold.ts imports it only
// when it runs the cold half, so `status` and the hooks never build the list. From source
// (tests) the cold half is imported as a module of its own, so there is nothing to hand over.
export function coldShared(): readonly object[] {
  return [];
}
