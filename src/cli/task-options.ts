// Which options each `task` action reads (SPEC §10): any other is refused with exit 2, never
// silently ignored (a --title given to retry would not change the title). Pure: the parsed options
// in, the usage message out (undefined: fine); tables in task-options.test.ts.

/** The options of `dotagent task`, in the order `--help` lists them (and the checks name them). */
export const TASK_OPTIONS = ["title", "depends-on", "output", "error", "extra-attempts", "owner", "reason", "yes"];

export type TaskOptionAction =
  "add" | "import" | "start" | "complete" | "fail" | "retry" | "next" | "edit" | "remove" | "skip";

type Options = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** The options each recording action reads. */
const ACTION_OPTIONS: Readonly<Record<Exclude<TaskOptionAction, "edit" | "remove" | "skip">, readonly string[]>> = {
  add: ["title", "depends-on"],
  import: [],
  start: ["owner"],
  complete: ["output"],
  fail: ["error"],
  retry: ["extra-attempts", "yes"],
  next: [],
};

const text = (options: Options, name: string) => {
  const value = options[name];
  return typeof value === "string" ? value : undefined;
};

/** What is wrong with the options of `task ACTION` (the plan edits included), or undefined. */
export function taskOptionProblem(action: TaskOptionAction, id: string, options: Options): string | undefined {
  if (action === "edit" || action === "remove" || action === "skip") return planEditProblem(action, id, options);
  if (action !== "next") {
    if (options.reason !== undefined) return `--reason goes with \`task skip\`, not \`task ${action}\``;
    if (options.yes !== undefined && action !== "retry")
      return `--yes goes with \`task edit|remove|skip|retry\`, not \`task ${action}\``;
  }
  const takes = ACTION_OPTIONS[action];
  const extra = TASK_OPTIONS.find((name) => options[name] !== undefined && !takes.includes(name));
  if (extra === undefined) return undefined;
  return `--${extra} does not go with \`task ${action}\`${takes.length > 0 ? ` (it takes ${takes.map((t) => `--${t}`).join(", ")})` : ""}; see \`dotagent task --help\``;
}

function planEditProblem(action: "edit" | "remove" | "skip", id: string, options: Options): string | undefined {
  const other = ["output", "error", "extra-attempts", "owner"].find((name) => options[name] !== undefined);
  if (other !== undefined) return `--${other} does not go with \`task ${action}\``;
  const title = text(options, "title");
  const dependsOn = text(options, "depends-on");
  const reason = text(options, "reason")?.trim();
  if (action !== "edit" && (title !== undefined || dependsOn !== undefined))
    return `--title and --depends-on go with \`task edit\`, not \`task ${action}\``;
  if (action !== "skip" && reason !== undefined) return "--reason goes with `task skip`";
  if (action === "edit" && title === undefined && dependsOn === undefined)
    return `task edit ${id} needs --title T or --depends-on A,B (--depends-on '' for none)`;
  if (action === "skip" && !reason)
    return `task skip ${id} needs --reason TEXT: why the task is not done (it is kept in the plan and the log)`;
  return undefined;
}
