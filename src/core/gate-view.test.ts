import { describe, expect, it } from "vitest";
import { designsView, reportView, requirementsView } from "./gate-view.js";

const FILE = "memory/reports/demand.json";

describe("requirementsView: what the requirements gate shows", () => {
  it.each([
    [
      "a story by its parts",
      { user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in", so_that: "I reach my account" }] },
      ["  Stories", "    US-1  as a user, I want to sign in, so that I reach my account"],
    ],
    [
      "an article the pm wrote is kept",
      { user_stories: [{ id: "US-1", as_a: "the admin", i_want: "to lock accounts" }] },
      ["  Stories", "    US-1  as the admin, I want to lock accounts"],
    ],
    [
      "an before a vowel",
      { user_stories: [{ id: "US-1", as_a: "editor", i_want: "x" }] },
      ["  Stories", "    US-1  as an editor, I want x"],
    ],
    ["stories as strings", { stories: ["sign in", ""] }, ["  Stories", "    -  sign in"]],
    [
      "criteria with and without ids",
      { acceptance_criteria: [{ id: "AC-10", text: "a" }, { text: "b" }, "c"] },
      ["  Acceptance criteria", "    AC-10  a", "    -      b", "    -      c"],
    ],
    [
      "a summary and open questions",
      { summary: "Sign in.", open_questions: [{ question: "How long?" }] },
      ["  Sign in.", "  Open questions", "    -  How long?"],
    ],
    ["nothing it knows", { whatever: 1 }, []],
  ])("%s", (_name, demand, lines) => expect(requirementsView(demand, FILE)).toEqual(lines));

  it("a long list is cut at 12 items, naming the file for the rest; a long item at 300 characters", () => {
    const lines = requirementsView(
      { acceptance_criteria: Array.from({ length: 15 }, (_, i) => ({ id: `AC-${i + 1}`, text: "x".repeat(400) })) },
      FILE,
    );
    expect(lines).toHaveLength(1 + 12 + 1);
    expect(lines.at(-1)).toBe(`    … 3 more in ${FILE}`);
    expect(lines[1]!.endsWith("…")).toBe(true);
    expect(lines[1]!.length).toBeLessThan(320);
  });
});

describe("designsView: what the design pick shows", () => {
  it("each design in a line, the recommended one marked, the rationale, the questions", () => {
    const view = designsView(
      [
        { name: "minimal", oneLine: "small" },
        { name: "robust", oneLine: "" },
      ],
      "robust",
      { rationale: "it lasts", questions_for_user: ["Revocation?"] },
    );
    expect(view).toEqual([
      "  Designs",
      "    minimal  small",
      "    robust   (no summary)  ← recommended",
      "  The roundtable recommends robust: it lasts",
      "  Questions for you",
      "    -  Revocation?",
    ]);
  });

  it("no rationale: the comparison, else nothing after the name", () => {
    expect(designsView([{ name: "a", oneLine: "x" }], "a", { comparison: "close" }).at(-1)).toBe(
      "  The roundtable recommends a: close",
    );
    expect(designsView([{ name: "a", oneLine: "x" }], "a", {}).at(-1)).toBe("  The roundtable recommends a.");
  });
});

describe("reportView: what a definition's gate shows of its report", () => {
  it("a JSON report: its summary, then each list as a section", () => {
    const reproduction = {
      request: "login fails",
      reproduced: true,
      observed: "401",
      tasks: [{ id: "fix-decode", title: "Decode once" }],
      risks: ["forms rely on it"],
    };
    expect(reportView(JSON.stringify(reproduction), "memory/reports/reproduction.json")).toEqual([
      "  request: login fails",
      "  Tasks",
      "    fix-decode  Decode once",
      "  Risks",
      "    -  forms rely on it",
    ]);
    expect(reportView(JSON.stringify({ summary: "Looks right.", findings: [] }), "r.json")).toEqual(["  Looks right."]);
  });

  it("a Markdown report: its first 20 lines, then how many more", () => {
    const text = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n");
    const lines = reportView(text, "memory/reports/notes.md");
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe("    line 1");
    expect(lines.at(-1)).toBe("    … 5 more lines in memory/reports/notes.md");
    expect(reportView("[1, 2]\n", "a.md")).toEqual(["    [1, 2]"]);
  });
});
