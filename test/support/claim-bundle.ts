// Bundles test/support/claim-worker.ts into one .mjs a test can spawn as a process of its own
// (the claim tests race real processes, not promises in one).
import { buildSync } from "esbuild";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

export function bundleClaimWorker(dir: string): string {
  const outfile = join(dir, "claim-worker.mjs");
  buildSync({
    entryPoints: [join(HERE, "claim-worker.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}
