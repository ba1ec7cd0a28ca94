import { DotagentError } from "../../core/errors.js";
import type { Command } from "../context.js";
export const command: Command = { summary: "install", usage: "dotagent install", options: {}, examples: [], run() { throw new DotagentError("todo", "todo"); } };
