// Where the Claude Agent SDK is for this dotagent: an optional peer dependency, resolved from
// beside the running dotagent (its own node_modules, or the global folder it is installed in),
// else from the project, else from the current folder. `dotagent run` loads it; `dotagent doctor`
// only finds it and reads its version (no import: doctor stays fast and never runs SDK code).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { DotagentError, EXIT } from "../core/errors.js";
import { readProjectText } from "../store/read-file.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";

export const SDK = "@anthropic-ai/claude-agent-sdk";
/** The SDK versions this dotagent was built and tested with (package.json peerDependencies). */
export const SDK_RANGE = ">=0.3.0 <0.4.0";

export interface FoundSdk {
  /** The SDK's entry file. */
  readonly file: string;
  /** Its package.json version, or null when unreadable. */
  readonly version: string | null;
  /** "beside dotagent", "in the project", "in the current folder". */
  readonly where: string;
}

/** The SDK's location, or undefined when none of the three places has it. */
export function findAgentSdk(root: string, cliUrl: string): FoundSdk | undefined {
  const bases: Array<[string, string]> = [
    [cliUrl, "beside dotagent"],
    [pathToFileURL(join(root, "package.json")).href, "in the project"],
    [pathToFileURL(join(process.cwd(), "package.json")).href, "in the current folder"],
  ];
  for (const [base, where] of bases) {
    let file: string;
    try {
      file = createRequire(base).resolve(SDK);
    } catch {
      continue;
    }
    return { file, version: sdkVersion(file), where };
  }
  return undefined;
}

/** The version in the package.json of the SDK folder holding `file` (its entry sits at the top). */
function sdkVersion(file: string): string | null {
  const read = readProjectText(join(dirname(file), "package.json"), { maxBytes: 1024 * 1024, links: "follow" });
  if (read.kind !== "ok") return null;
  try {
    const pkg = JSON.parse(read.text) as { name?: unknown; version?: unknown };
    return pkg.name === SDK && typeof pkg.version === "string" ? pkg.version : null;
  } catch {
    return null;
  }
}

/** Whether `version` is in SDK_RANGE (0.3.x). */
export function sdkVersionFits(version: string): boolean {
  return /^0\.3\.\d+/.test(version);
}

/** The SDK for `dotagent run`; missing: `sdk_missing` (exit 1) before anything is written. */
export async function loadAgentSdk(root: string, cliUrl: string): Promise<QuerySdk<QueryMessage>> {
  const found = findAgentSdk(root, cliUrl);
  if (found !== undefined) {
    const sdk = (await import(pathToFileURL(found.file).href)) as Partial<QuerySdk<QueryMessage>>;
    if (typeof sdk.query === "function") return sdk as QuerySdk<QueryMessage>;
  }
  throw new DotagentError(
    "sdk_missing",
    `dotagent run needs the Claude Agent SDK: npm install ${SDK} (in the project or beside dotagent)`,
    EXIT.refused,
  );
}

/** How to install it, for doctor's fix and the error: beside a global dotagent, or in the project. */
export function sdkInstallHint(): string {
  return `npm install ${SDK} in the project (or \`npm install -g ${SDK}\` beside a global dotagent)`;
}
