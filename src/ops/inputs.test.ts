// `--designs` checked as a table (issue 41): the same usage error (exit 2) for the CLI and the
// library, in-process. test/cli.test.ts keeps one refusal through the built CLI (one line, exit 2,
// phase.json untouched).
import { describe, expect, it } from "vitest";
import { DotagentError } from "../core/errors.js";
import { checkDesigns } from "./inputs.js";

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof DotagentError) return [error.code, error.exitCode, error.message];
    throw error;
  }
  return undefined;
};

describe("--designs: names in order, once each, only with `phase start`", () => {
  it.each<[string, string[] | undefined, string, string[] | undefined]>([
    ["none given", undefined, "complete", undefined],
    ["two names", ["minimal", "robust"], "start", ["minimal", "robust"]],
    [
      "blanks and repeats dropped, the order kept",
      [" robust", "", "minimal", "robust "],
      "start",
      ["robust", "minimal"],
    ],
  ])("%s", (_name, names, action, designs) => {
    expect(checkDesigns(names, action)).toEqual(designs);
  });

  it.each<[string, string[], string, string]>([
    ["with another action than start", ["a"], "complete", "--designs goes with `phase start ARCHITECTURE`"],
    [
      "only commas (`--designs ,`)",
      ["", ""],
      "start",
      "--designs needs at least one design name, like --designs minimal,robust",
    ],
    [
      "a name that is a path",
      ["minimal", "../x"],
      "start",
      `"../x" is not a valid design name: letters, digits, '.', '_' or '-', not starting with '.' or '-'`,
    ],
    [
      "a name starting with '-'",
      ["-rf"],
      "start",
      `"-rf" is not a valid design name: letters, digits, '.', '_' or '-', not starting with '.' or '-'`,
    ],
  ])("refused %s (usage, exit 2)", (_name, names, action, message) => {
    expect(refusal(() => checkDesigns(names, action))).toEqual(["usage", 2, message]);
  });
});
