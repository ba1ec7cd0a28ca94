// The catalogue is the closed set programs read `error.code` from: every entry well formed, and
// none dead — each code is spelt somewhere in src/ besides the catalogue (SPEC §10.1 says what it
// promises, so a code nothing throws is a promise nobody keeps).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "./error-codes.js";
import { EXIT } from "./errors.js";

const SRC = join(import.meta.dirname, "..");

/** The text of every source file under src/ but tests, their support and the catalogue itself. */
function sourceText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (
        name.endsWith(".ts") &&
        !name.endsWith(".test.ts") &&
        !name.includes("test-support") &&
        name !== "error-codes.ts"
      )
        texts.push(readFileSync(path, "utf8"));
    }
  };
  walk(SRC);
  return texts.join("\n");
}

/**
 * Codes of `catalogue` that `source` never gives as an error's code: the first argument of
 * `new DotagentError(`, `refused(`, a core refusal's `refuse(` or a subclass's `super(`, or a
 * `code: "…"` field. A bare string would not do: "locked" and "interrupted" are words of other sets too.
 */
function unusedCodes(catalogue: Record<string, unknown>, source: string): string[] {
  return Object.keys(catalogue).filter(
    (code) => !new RegExp(`(?:\\b(?:DotagentError|refused?|super)\\(\\s*|\\bcode: )"${code}"`).test(source),
  );
}

describe("the error-code catalogue", () => {
  it("each code is snake_case with one to three known exit codes and a one-line meaning", () => {
    const exits = new Set<number>(Object.values(EXIT));
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(code, code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(entry.exit.length, code).toBeGreaterThanOrEqual(1);
      expect(entry.exit.length, code).toBeLessThanOrEqual(3);
      expect(new Set(entry.exit).size, code).toBe(entry.exit.length);
      for (const exit of entry.exit) {
        expect(exits.has(exit), `${code}: ${exit}`).toBe(true);
        expect(exit, code).not.toBe(EXIT.ok);
      }
      expect(entry.when, code).toMatch(/^\S[^\n]*\S$/);
    }
  });

  it("holds no dead code: every one is used somewhere in src/", () => {
    const source = sourceText();
    expect(source.length).toBeGreaterThan(100_000);
    expect(unusedCodes(ERROR_CODES, source)).toEqual([]);
  });

  it("a code nothing throws is caught, even where its word appears", () => {
    expect(unusedCodes({ ...ERROR_CODES, never_thrown: {} }, sourceText())).toEqual(["never_thrown"]);
    expect(unusedCodes({ locked: {} }, 'if (error.code === "locked") return; const verdict = "locked";')).toEqual([
      "locked",
    ]);
    expect(
      unusedCodes(
        { locked: {}, empty_plan: {} },
        'throw new DotagentError(\n  "locked", m); return { ok: false, code: "empty_plan", message };',
      ),
    ).toEqual([]);
  });
});
