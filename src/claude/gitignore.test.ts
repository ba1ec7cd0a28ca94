import { describe, expect, it } from "vitest";
import { GITIGNORE_HEADING, GITIGNORE_LINES, mergeGitignore, unmergeGitignore } from "./gitignore.js";

const ours = GITIGNORE_LINES.join("\n");

describe("mergeGitignore", () => {
  it.each([
    ["no .gitignore: the file is dotagent's lines", null, [], `${ours}\n`],
    ["an empty .gitignore", "", [], `${ours}\n`],
    [
      "the person's lines stay first, a blank line, then dotagent's",
      "node_modules/\ndist/\n",
      [],
      `node_modules/\ndist/\n\n${ours}\n`,
    ],
    ["no final newline in the person's file", "node_modules/", [], `node_modules/\n\n${ours}\n`],
    ["CRLF files stay CRLF", "node_modules/\r\n", [], `node_modules/\r\n\r\n${GITIGNORE_LINES.join("\r\n")}\r\n`],
  ] as const)("%s", (_name, text, owned, expected) => {
    const merge = mergeGitignore(text, GITIGNORE_LINES, owned);
    expect(merge.text).toBe(expected);
    expect(merge.changed).toBe(true);
    expect(merge.owned).toEqual([...GITIGNORE_LINES]);
  });

  it("a second merge changes nothing", () => {
    const first = mergeGitignore("dist/\n", GITIGNORE_LINES, []);
    const second = mergeGitignore(first.text, GITIGNORE_LINES, first.owned);
    expect(second).toEqual({ text: first.text, owned: first.owned, changed: false });
  });

  it("a line the person already had is not added again, and is not dotagent's", () => {
    const merge = mergeGitignore("/memory/runs/\n", GITIGNORE_LINES, []);
    expect(merge.text.split("\n").filter((l) => l === "/memory/runs/")).toHaveLength(1);
    expect(merge.owned).not.toContain("/memory/runs/");
  });

  it("a line dotagent added and the person removed stays removed", () => {
    const first = mergeGitignore(null, GITIGNORE_LINES, []);
    const edited = first.text.replace("/memory/state/.archive/\n", "");
    const again = mergeGitignore(edited, GITIGNORE_LINES, first.owned);
    expect(again.changed).toBe(false);
    expect(again.text).toBe(edited);
    expect(again.owned).not.toContain("/memory/state/.archive/");
  });

  it("an upgrade takes out the lines an older version added and no longer wants, and adds new ones", () => {
    const old = mergeGitignore("dist/\n", [GITIGNORE_HEADING, "/memory/old/"], []);
    const upgraded = mergeGitignore(old.text, GITIGNORE_LINES, old.owned);
    expect(upgraded.text).not.toContain("/memory/old/");
    expect(upgraded.text.startsWith("dist/\n\n")).toBe(true);
    expect(upgraded.owned).toEqual([...GITIGNORE_LINES]);
  });
});

describe("unmergeGitignore", () => {
  it("removes exactly dotagent's lines (and its blank line), leaving the person's", () => {
    const merge = mergeGitignore("node_modules/\n/memory/runs/\n", GITIGNORE_LINES, []);
    expect(unmergeGitignore(merge.text, merge.owned, false)).toBe("node_modules/\n/memory/runs/\n");
  });

  it("a line the person added after install stays", () => {
    const merge = mergeGitignore("dist/\n", GITIGNORE_LINES, []);
    expect(unmergeGitignore(`${merge.text}coverage/\n`, merge.owned, false)).toBe("dist/\ncoverage/\n");
  });

  it("a file dotagent created and nothing else is in: null (remove it)", () => {
    const merge = mergeGitignore(null, GITIGNORE_LINES, []);
    expect(unmergeGitignore(merge.text, merge.owned, true)).toBeNull();
  });

  it("a file dotagent created that the person added to: only dotagent's lines go", () => {
    const merge = mergeGitignore(null, GITIGNORE_LINES, []);
    expect(unmergeGitignore(`${merge.text}.env\n`, merge.owned, true)).toBe(".env\n");
  });
});
