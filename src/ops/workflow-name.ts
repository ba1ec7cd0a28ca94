// A workflow definition by name (`--workflow NAME`, the library's `workflow` option): the built-in
// or project definition, resolved and checked, or a one-line error naming the file, the JSON path
// and the fix (exit 3). One resolver for the CLI, the library and `dotagent run`.
import { DotagentError, EXIT } from "../core/errors.js";
import type { Flow } from "../core/flow.js";
import { nearest } from "../core/suggest.js";

export async function resolveWorkflowName(root: string, name: string): Promise<Flow> {
  const { workflowCatalog, describeDefProblem } = await import("../store/workflow-files.js");
  const catalog = await workflowCatalog(root);
  const resolved = catalog.resolve(name);
  // A mistyped name (`--workflow fxi`): the nearest one, as a mistyped command gets.
  const known = catalog.all.map((d) => d.name);
  const guess = known.includes(name) ? null : nearest(name, known);
  if (!resolved.ok && guess !== null)
    throw new DotagentError(
      "workflow_invalid",
      `no workflow named ${JSON.stringify(name)} (did you mean ${guess}?); \`dotagent workflows\` lists them`,
      EXIT.invalid,
      { problems: resolved.problems },
    );
  if (!resolved.ok)
    throw new DotagentError(
      "workflow_invalid",
      `${describeDefProblem(resolved.problems[0]!)}${resolved.problems.length > 1 ? ` (and ${resolved.problems.length - 1} more: \`dotagent workflows validate ${name}\`)` : ""}`,
      EXIT.invalid,
      { problems: resolved.problems },
    );
  return resolved.flow;
}
