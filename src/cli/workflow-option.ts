// `/develop --workflow NAME …`: the definition named in front of the request text (resolved by
// ops/workflow-name.ts, as `--workflow NAME` is).

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
