import { usageError } from "../../core/errors.js";
import type { Command } from "../context.js";
import { loadCold } from "../load-cold.js";

export const command: Command = {
  summary: "print the JSON Schema of phase|execution|task-output|workflow, generated from the zod schemas",
  usage: "dotagent schema phase|execution|task-output|workflow",
  options: {},
  examples: ["dotagent schema phase > phase.schema.json", "dotagent schema task-output"],
  async run(context) {
    const { exportJsonSchema, SCHEMA_NAMES } = await loadCold();
    const name = context.args[0];
    if (name === undefined || !(SCHEMA_NAMES as readonly string[]).includes(name))
      throw usageError(`schema needs one of ${SCHEMA_NAMES.join(", ")}`);
    process.stdout.write(`${JSON.stringify(exportJsonSchema(name as (typeof SCHEMA_NAMES)[number]), null, 2)}\n`);
    return 0;
  },
};
