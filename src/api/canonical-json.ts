// Canonical JSON (object keys sorted, no spaces) so that equal inputs hash equally whatever the
// order their keys were built in; the inputs hash of a checkpoint store is its sha256.

/** JSON text of `value` with every object's keys sorted; undefined members are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** sha256 (hex) of the canonical JSON of `value`; `undefined` hashes like `null` (no inputs). */
export function hashInputs(value: unknown): string {
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(canonicalJson(value)).digest("hex");
}
