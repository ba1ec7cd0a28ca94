import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GLOBAL_OPTIONS, type Command } from "./context.js";
import { parseArgv, type ArgOptions } from "./parse-args.js";

/** What Node's parseArgs gives: its values and positionals, or its error's code and message. */
function node(args: string[], options: ArgOptions, strict: boolean) {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: options as never,
      allowPositionals: true,
      strict,
    });
    return { values: { ...(values as object) }, positionals };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message };
  }
}

function ours(args: string[], options: ArgOptions, strict: boolean) {
  try {
    const { values, positionals } = parseArgv(args, options, strict);
    return { values: { ...values }, positionals };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message };
  }
}

// Every command's table, with the options every command takes, as src/cli/main.ts hands them in.
const dir = join(import.meta.dirname, "commands");
const tables: [string, ArgOptions][] = await Promise.all(
  readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map(async (f) => {
      const { command } = (await import(/* @vite-ignore */ pathToFileURL(join(dir, f)).href)) as { command: Command };
      return [f, { ...GLOBAL_OPTIONS, ...command.options } as ArgOptions] as [string, ArgOptions];
    }),
);

/** Words as people and models type them: each table's options in every form, and the odd ones. */
function word(options: ArgOptions) {
  const names = Object.keys(options);
  const shorts = names.flatMap((n) => (options[n]!.short ? [options[n]!.short!] : []));
  return fc.oneof(
    fc.constantFrom(...names.map((n) => `--${n}`)),
    fc.tuple(fc.constantFrom(...names), fc.constantFrom("", "x", "-x", "=", "a=b")).map(([n, v]) => `--${n}=${v}`),
    fc.constantFrom(...[...shorts, "x", "q"].map((s) => `-${s}`)),
    fc
      .array(fc.constantFrom(...shorts, "x", "5"), { minLength: 2, maxLength: 4 })
      .map((letters) => `-${letters.join("")}`),
    fc.constantFrom("--", "-", "---", "--=x", "--x", "--jsn", "--__proto__", "--constructor", "-=", ""),
    fc.constantFrom("task-1", "value", "-5", "--json", "a b"),
    fc.string({ maxLength: 6 }),
  );
}

describe("parseArgv: Node's parseArgs without loading it", () => {
  it("gives Node's values and positionals, or its error's code and message, on every command's table", () => {
    for (const [file, options] of tables)
      for (const strict of [true, false])
        fc.assert(
          fc.property(fc.array(word(options), { maxLength: 6 }), (args) => {
            expect(ours(args, options, strict), `${file}, strict ${strict}: ${JSON.stringify(args)}`).toStrictEqual(
              node(args, options, strict),
            );
          }),
          { numRuns: 300 },
        );
  });

  it("answers as Node does the cases the CLI words for the person (src/cli/main.ts)", () => {
    const options: ArgOptions = { ...GLOBAL_OPTIONS, id: { type: "string", short: "i" }, all: { type: "boolean" } };
    for (const args of [
      ["--jsn"],
      ["-x"],
      ["--dir"],
      ["--json=1"],
      ["--dir", "--json"],
      ["-i", "-x"],
      ["-hv"],
      ["-iFILE"],
      ["-hiFILE", "rest"],
      ["--", "--json"],
      ["--dir=a", "--dir=b", "word"],
    ])
      for (const strict of [true, false])
        expect(ours(args, options, strict)).toStrictEqual(node(args, options, strict));
  });

  it("takes multiple and default as Node does", () => {
    const options: ArgOptions = {
      tag: { type: "string", multiple: true, short: "t" },
      flag: { type: "boolean", default: false },
      name: { type: "string", default: "x" },
    };
    for (const args of [[], ["--tag", "a", "-t", "b", "--flag"], ["--tag=a", "--name", "y"]])
      expect(ours(args, options, true)).toStrictEqual(node(args, options, true));
  });
});
