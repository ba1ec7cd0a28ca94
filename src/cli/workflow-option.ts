// `--workflow NAME` (init, resume --start, run): the built-in or project definition, resolved and
// checked, or a one-line error naming the file, the JSON path and the fix (exit 3).
import { DotagentError, EXIT } from "../core/errors.js";
import type { Flow } from "../core/flow.js";

export async function resolveWorkflowOption(root: string, name: string): Promise<Flow> {
  const { workflowCatalog, describeDefProblem } = await import("../store/workflow-files.js");
  const resolved = (await workflowCatalog(root)).resolve(name);
  if (!resolved.ok) throw new DotagentError("workflow_invalid", `${describeDefProblem(resolved.problems[0]!)}${resolved.problems.length > 1 ? ` (and ${resolved.problems.length - 1} more: \`dotagent workflows validate ${name}\`)` : ""}`, EXIT.invalid, { problems: resolved.problems });
  return resolved.flow;
}

/**
 * `/develop --workflow fix login fails` hands dotagent one request text; a leading
 * `--workflow NAME` in it names the definition and is not part of the request.
 */
export function splitWorkflowPrefix(request: string | undefined): { name?: string; request: string | undefined } {
  const match = /^\s*--workflow(?:=|\s+)([a-z][a-z0-9-]{0,39})(?=\s|$)\s*/.exec(request ?? "");
  if (match === null) return { request };
  const rest = request!.slice(match[0].length).trim();
  return { name: match[1]!, request: rest === "" ? undefined : rest };
}
