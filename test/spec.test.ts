// SPEC.md is the reference other programs read: its field tables must say exactly what
// `dotagent schema` (generated from the zod schemas that parse the files) says — every field,
// nothing more, and which are required.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, dotagent } from "./support/cli.js";
import { ACTIONS, SITUATIONS } from "../src/core/plan-resume.js";

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; items?: JsonSchema; anyOf?: JsonSchema[] };

/** Field paths like `tasks[].depends_on` → required?, walking nested objects, arrays and nullables. */
export function schemaFields(schema: JsonSchema, prefix = "", out = new Map<string, boolean>()): Map<string, boolean> {
  for (const alternative of schema.anyOf ?? []) schemaFields(alternative, prefix, out);
  if (schema.type === "array" && schema.items) schemaFields(schema.items, `${prefix}[]`, out);
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.set(path, schema.required?.includes(name) ?? false);
    schemaFields(child, path, out);
  }
  return out;
}

/** The rows of the table between `<!-- schema:NAME -->` and `<!-- /schema -->`. */
export function specFields(spec: string, name: string): Map<string, boolean> {
  const start = spec.indexOf(`<!-- schema:${name} -->`);
  if (start < 0) throw new Error(`SPEC.md has no <!-- schema:${name} --> table`);
  const end = spec.indexOf("<!-- /schema -->", start);
  const rows = new Map<string, boolean>();
  for (const line of spec.slice(start, end).split("\n")) {
    const row = /^\| `([^`]+)` \| (required|optional) \|/.exec(line);
    if (row) rows.set(row[1]!, row[2] === "required");
  }
  return rows;
}

const spec = readFileSync(join(REPO, "SPEC.md"), "utf8");

describe("SPEC.md matches `dotagent schema`", () => {
  for (const name of ["phase", "execution", "task-output"]) {
    it(`${name}: every field, required or optional as the schema says`, () => {
      const run = dotagent(REPO, ["schema", name]);
      expect(run.code).toBe(0);
      const fromSchema = Object.fromEntries(schemaFields(run.json as JsonSchema));
      expect(Object.keys(fromSchema).length).toBeGreaterThan(1);
      expect(Object.fromEntries(specFields(spec, name))).toEqual(fromSchema);
    });
  }

  it("a spec table that drops a field or gets `required` wrong is caught", () => {
    const tampered = spec.replace("| `tasks[].title` | optional |", "| `tasks[].titel` | optional |").replace("| `updated_at` | required |", "| `updated_at` | optional |");
    const fields = specFields(tampered, "execution");
    expect(fields.has("tasks[].title")).toBe(false);
    expect(fields.get("updated_at")).toBe(false);
  });

  it("names every exit code, next action and situation the CLI uses", () => {
    for (const code of ["**0** ok", "**1** refused", "**2** usage", "**3** state invalid", "**4** locked", "**5** a person must decide"]) expect(spec).toContain(code);
    const help = dotagent(REPO, ["--help"]).stdout;
    const commands = [...help.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands) expect(spec).toContain(`dotagent ${command}`);
    for (const word of [...ACTIONS, ...SITUATIONS]) expect(spec).toContain(word);
  });
});
