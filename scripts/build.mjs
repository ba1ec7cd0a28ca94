// Builds the CLI into ONE file (dist/dotagent.mjs) so start-up reads one module, not hundreds.
// Heavy dependencies are reached through dynamic import(): esbuild keeps them in the same file
// but wraps them in lazy initialisers, so a command that never needs tar or prompts never runs them.
import { build } from "esbuild";
import { readFileSync, mkdirSync, copyFileSync, chmodSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "none",
  define: { __DOTAGENT_VERSION__: JSON.stringify(pkg.version) },
  // Some CommonJS dependencies call require() for node built-ins; give the ESM bundle one.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url);",
  },
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/dotagent.mjs",
  banner: { js: "#!/usr/bin/env node\n" + common.banner.js },
});
await build({ ...common, entryPoints: ["src/index.ts"], outfile: "dist/index.mjs" });
chmodSync("dist/dotagent.mjs", 0o755);

// The checkpoint skill carries the CLI beside it so it works without a global install.
mkdirSync("skills/checkpoint/scripts", { recursive: true });
copyFileSync("dist/dotagent.mjs", "skills/checkpoint/scripts/dotagent.mjs");
chmodSync("skills/checkpoint/scripts/dotagent.mjs", 0o755);
