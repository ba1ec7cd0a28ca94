// SPEC.md is the reference other programs read: its field tables must say exactly what
// `dotagent schema` (generated from the zod schemas that parse the files) says — every field,
// nothing more, and which are required.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, dotagent } from "./support/cli.js";
import { ACTIONS, SITUATIONS } from "../src/core/plan-resume.js";
import { ERROR_CODES } from "../src/core/error-codes.js";

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

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

/** §10.1's table between `<!-- error-codes -->` and `<!-- /error-codes -->`: code → its exit codes and meaning, as written. */
export function specErrorCodes(spec: string): Map<string, { exit: string; when: string }> {
  const start = spec.indexOf("<!-- error-codes -->");
  if (start < 0) throw new Error("SPEC.md has no <!-- error-codes --> table");
  const end = spec.indexOf("<!-- /error-codes -->", start);
  const rows = new Map<string, { exit: string; when: string }>();
  for (const line of spec.slice(start, end).split("\n")) {
    const row = /^\| `([^`]+)` \| ([^|]*) \| (.*) \|$/.exec(line);
    if (row) rows.set(row[1]!, { exit: row[2]!.trim(), when: row[3]!.trim() });
  }
  return rows;
}

/** What tells SPEC's table from the catalogue: codes only one of them has, and codes whose exit codes or meaning differ. */
export function errorCodeDrift(
  table: Map<string, { exit: string; when: string }>,
  catalogue: Record<string, { exit: readonly number[]; when: string }>,
): string[] {
  const drift: string[] = [];
  for (const [code, { exit, when }] of Object.entries(catalogue)) {
    const want = [...exit].sort((a, b) => a - b).join(", ");
    const row = table.get(code);
    if (row === undefined) drift.push(`${code}: in the catalogue, not in SPEC`);
    else if (row.exit !== want) drift.push(`${code}: exit ${want} in the catalogue, ${row.exit} in SPEC`);
    else if (row.when !== when) drift.push(`${code}: meaning differs`);
  }
  for (const code of table.keys()) if (!(code in catalogue)) drift.push(`${code}: in SPEC, not in the catalogue`);
  return drift;
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
    const tampered = spec
      .replace("| `tasks[].title` | optional |", "| `tasks[].titel` | optional |")
      .replace("| `updated_at` | required |", "| `updated_at` | optional |");
    const fields = specFields(tampered, "execution");
    expect(fields.has("tasks[].title")).toBe(false);
    expect(fields.get("updated_at")).toBe(false);
  });

  it("names every exit code, next action and situation the CLI uses", () => {
    for (const code of [
      "**0** ok",
      "**1** refused",
      "**2** usage",
      "**3** state invalid",
      "**4** locked",
      "**5** a person must decide",
    ])
      expect(spec).toContain(code);
    const help = dotagent(REPO, ["--help"]).stdout;
    const commands = [...help.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands) expect(spec).toContain(`dotagent ${command}`);
    for (const word of [...ACTIONS, ...SITUATIONS]) expect(spec).toContain(word);
  });
});

describe("SPEC.md §10.1 is the catalogue of error codes (src/core/error-codes.ts)", () => {
  it("every code, and no other, with the same exit codes and meaning", () => {
    const table = specErrorCodes(spec);
    expect(table.size).toBeGreaterThan(50);
    expect(errorCodeDrift(table, ERROR_CODES)).toEqual([]);
  });

  it("a table that drops a code, adds one, or gets an exit code or a meaning wrong is caught", () => {
    const row = (code: string) => new RegExp(`^\\| \`${code}\` \\|.*\\n`, "m");
    const dropped = spec.replace(row("archive_not_found"), "");
    expect(errorCodeDrift(specErrorCodes(dropped), ERROR_CODES)).toEqual([
      "archive_not_found: in the catalogue, not in SPEC",
    ]);
    const added = spec.replace("| `usage` |", "| `usgae` | 2 | a misspelt code |\n| `usage` |");
    expect(errorCodeDrift(specErrorCodes(added), ERROR_CODES)).toEqual(["usgae: in SPEC, not in the catalogue"]);
    const wrongExit = spec
      .replace("| `locked` | 4 |", "| `locked` | 1 |")
      .replace("| `no_workflow` | 1, 3 |", "| `no_workflow` | 1 |");
    expect(errorCodeDrift(specErrorCodes(wrongExit), ERROR_CODES)).toEqual([
      "locked: exit 4 in the catalogue, 1 in SPEC",
      "no_workflow: exit 1, 3 in the catalogue, 1 in SPEC",
    ]);
    const reworded = spec.replace(
      "| `locked` | 4 | the lock is held by another process |",
      "| `locked` | 4 | the lock is held |",
    );
    expect(errorCodeDrift(specErrorCodes(reworded), ERROR_CODES)).toEqual(["locked: meaning differs"]);
  });
});
