// The manifest is the first entry of every archive: enough to list an archive without reading
// the rest of it, and a checksum per file so restore can tell a damaged or altered archive.
import * as z from "zod/mini";
import { nonNegativeInt, parseWith, type ParseResult } from "../schema/common.js";

export const MANIFEST_FORMAT = 1;
/** Largest manifest read; 100,000 entries with long paths stay below it. */
export const MAX_MANIFEST_SIZE = 32 * 1024 * 1024;

export const manifestFileSchema = z.looseObject({
  path: z.string(),
  size: nonNegativeInt,
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/, "64 lowercase hex characters")),
});

export const manifestSchema = z.looseObject({
  format: z.literal(MANIFEST_FORMAT),
  name: z.string(),
  workflow_id: z.string(),
  phase: z.nullable(z.string()),
  phase_status: z.nullable(z.string()),
  created_at: z.string(),
  reason: z.nullable(z.string()),
  files: z.array(manifestFileSchema),
  /** Live entries left out (links, devices, what restore would refuse), with why. */
  skipped: z.optional(z.array(z.looseObject({ path: z.string(), reason: z.string() }))),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof manifestFileSchema>;

export function parseManifest(data: unknown): ParseResult<Manifest> {
  return parseWith(manifestSchema, data);
}

/** One line naming what is wrong with a manifest, for `archive list` and restore errors. */
export function describeManifestProblems(result: ParseResult<Manifest>): string {
  if (result.ok) return "";
  return result.problems.map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`)).join("; ");
}
