import { describe, expect, it } from "vitest";
import { escapeMarkdown, markdownKindOf, renderReportMarkdown, renderReportsMarkdown } from "./report-markdown.js";

describe("markdownKindOf", () => {
  it.each([
    ["memory/reports/demand.json", "demand"],
    ["memory/reports/designs/minimal.json", "design"],
    ["memory/reports/roundtable.json", "roundtable"],
    ["memory/reports/final_design.json", "final_design"],
    ["memory/reports/plan.rework-2.json", "plan"],
    ["memory/reports/tasks/task-001.json", "task"],
    ["memory/reports/verification.rework-1.json", "verification"],
    ["memory/reports/reflection.json", "reflection"],
    ["memory/reports/custom.json", "other"],
  ])("%s is %s", (path, kind) => expect(markdownKindOf(path)).toBe(kind));
});

describe("escapeMarkdown (agent text made inert)", () => {
  it.each([
    ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
    ["[click](javascript:alert(1))", "\\[click\\](javascript:alert(1))"],
    ["![x](http://evil/track.png)", "!\\[x\\](http://evil/track.png)"],
    ["# fake heading", "\\# fake heading"],
    ["- fake item", "\\- fake item"],
    ["1. fake list", "1\\. fake list"],
    ["a | b", "a \\| b"],
    ["**bold** _em_ `code` ~~gone~~", "\\*\\*bold\\*\\* \\_em\\_ \\`code\\` \\~\\~gone\\~\\~"],
    ["line one\n## two\n```", "line one ## two \\`\\`\\`"],
    ["&amp; stays text", "&amp;amp; stays text"],
    ["final_design.json and POST /login", "final_design.json and POST /login"],
    // Shown as the text `\u001b` once rendered (its backslash escaped), never sent as the byte.
    ["\u001b]0;title\u0007", "\\\\u001b\\]0;title\\\\u0007"],
  ])("%j", (text, escaped) => expect(escapeMarkdown(text)).toBe(escaped));
});

describe("renderReportMarkdown", () => {
  it("reads a demand as requirements: stories in words, criteria with their ids", () => {
    const md = renderReportMarkdown("memory/reports/demand.json", {
      request: "add login",
      summary: "Users sign in.",
      user_stories: [{ id: "US-1", as_a: "registered user", i_want: "to sign in", so_that: "I reach my account" }],
      acceptance_criteria: [{ id: "AC-1", story: "US-1", text: "a wrong password shows an error" }],
      extra_field: 3,
    });
    expect(md).toContain("## Requirements");
    expect(md).toContain("### Request\n\nadd login");
    expect(md).toContain("- **US-1** As registered user, I want to sign in, so that I reach my account");
    expect(md).toContain("- **AC-1** — story: US-1; a wrong password shows an error");
    // A field no renderer knows is still shown, after the known ones.
    expect(md.indexOf("### Extra field")).toBeGreaterThan(md.indexOf("### Acceptance criteria"));
  });

  it("says whether verification passed before its failures", () => {
    const md = renderReportMarkdown("memory/reports/verification.json", {
      passed: false,
      failures: [{ criterion: "AC-4", problem: "cookie readable", passed: false }],
    });
    expect(md).toMatch(
      /## Verification[\s\S]*\*\*Failed\.\*\*[\s\S]*### Failures\n\n- ❌ \*\*AC-4\*\* — problem: cookie readable/,
    );
  });

  it("says none for an empty list inside an item, never a dangling label", () => {
    expect(renderReportMarkdown("memory/reports/designs/a.json", { tasks: [{ id: "t1", depends_on: [] }] })).toContain(
      "- **t1** — depends on: none",
    );
  });

  it("names a design and a task in its heading", () => {
    expect(
      renderReportMarkdown("memory/reports/designs/jwt.json", { name: "jwt", risks: ["revocation is hard"] }),
    ).toContain("## Design: jwt");
    expect(renderReportMarkdown("memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" })).toContain(
      "## Task: t1",
    );
  });

  it.each([
    ["a number", 42],
    ["an array", [1, "two"]],
    ["null fields", { summary: null, went_well: [], outcome: {} }],
    ["nested odd values", { summary: { deep: [{ x: [1, { y: 2 }] }] }, tasks: [null, 7, "x"] }],
    ["a non-finite number", { estimate: Number.NaN }],
  ])("does not throw on %s", (_name, data) =>
    expect(renderReportMarkdown("memory/reports/final_design.json", data)).toMatch(/^## Chosen design/),
  );

  it("shows a Markdown report (reflection.md) as escaped lines: the agent's headings do not become markup", () => {
    const md = renderReportMarkdown("memory/reports/reflection.md", "# went well\n<script>alert(1)</script>\n\n- item");
    expect(md).toContain("\\# went well");
    expect(md).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(md).not.toContain("<script>");
    expect(md).toContain("\\- item");
  });

  it("keeps every line of a hostile report inside its field: no heading, HTML or link of the agent's", () => {
    const hostile = 'x\n# Approved by security\n<a href="javascript:alert(1)">ok</a> [y](javascript:z)';
    const md = renderReportMarkdown("memory/reports/roundtable.json", {
      recommendation: hostile,
      [hostile]: hostile,
      designs: [{ name: hostile }],
    });
    // The headings are this module's four; the agent's "# Approved by security" starts no line.
    expect(
      md
        .split("\n")
        .filter((l) => l.startsWith("#"))
        .map((l) => l.slice(0, 4)),
    ).toEqual(["## D", "### ", "### ", "### "]);
    expect(md).not.toMatch(/^#+ Approved/m);
    expect(md).not.toMatch(/<a |(?<!\\)\]\(javascript/);
  });
});

describe("renderReportsMarkdown", () => {
  it("puts the reports in workflow order whatever order they come in", () => {
    const md = renderReportsMarkdown("Workflow wf", [
      { path: "memory/reports/verification.json", data: { passed: true } },
      { path: "memory/reports/demand.json", data: { summary: "s" } },
      { path: "memory/reports/final_design.json", data: { chosen: "a" } },
    ]);
    expect(md.indexOf("## Requirements")).toBeLessThan(md.indexOf("## Chosen design"));
    expect(md.indexOf("## Chosen design")).toBeLessThan(md.indexOf("## Verification"));
  });

  it("says when there is nothing yet", () =>
    expect(renderReportsMarkdown("Workflow wf", [])).toContain("No reports yet."));

  it("follows a definition's steps when it names them: a check after qa's verification, unowned reports last", () => {
    const md = renderReportsMarkdown("Workflow wf", [
      { path: "memory/reports/notes.json", data: { summary: "n" } },
      { path: "memory/reports/steps/TESTS.json", data: { step: "TESTS", passed: true }, kind: "command", step: 4 },
      { path: "memory/reports/verification.json", data: { passed: true }, step: 3 },
      { path: "memory/reports/review.json", data: { summary: "r" }, step: 5 },
    ]);
    const at = [
      "## Verification",
      "## Step: TESTS",
      "<sub>memory/reports/review.json",
      "<sub>memory/reports/notes.json",
    ].map((h) => md.indexOf(h));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});

describe("the chosen design, as dotagent writes it from the pick (issue 42: show in a person's words)", () => {
  const pick = {
    chosen: "minimal",
    source: "memory/reports/designs/minimal.json",
    approved_by: "dotagent run --approve auto",
    decided_at: "2026-11-30T03:58:22.221Z",
    user_notes: "",
    design: {
      name: "minimal",
      summary: "minimal login",
      tasks: [
        { id: "task-001", title: "Add password_hash to users", depends_on: [] },
        { id: "task-002", title: "Login route", depends_on: ["task-001"] },
      ],
    },
    tasks: [{ id: "task-001", title: "Add password_hash to users", depends_on: [] }],
  };
  const md = renderReportMarkdown("memory/reports/final_design.json", pick);

  it("names its fields in words, and an empty note has no heading over nothing", () => {
    for (const heading of ["### Chosen", "### Design", "### Tasks", "### From", "### Approved by", "### Decided at"])
      expect(md).toContain(`${heading}\n\n`);
    expect(md).not.toMatch(/### (source|approved_by|decided_at|user_notes)/);
    expect(md).not.toContain("Your notes");
    expect(renderReportMarkdown("memory/reports/final_design.json", { ...pick, user_notes: "keep the API" })).toContain(
      "### Your notes\n\nkeep the API\n",
    );
  });

  it("a design's tasks inside it read by their ids, not as every field run together", () => {
    expect(md).toContain("- tasks: task-001, task-002\n");
    expect(md).not.toContain("depends_on: none, id:");
  });
});

describe("rounds of rework (issue 42: the views tell the same story for develop and a definition)", () => {
  it("a report that sent the work back reads before the round after it, and says which round it ended", () => {
    const md = renderReportsMarkdown("Workflow wf", [
      { path: "memory/reports/verification.json", data: { passed: true }, step: 3 },
      { path: "memory/reports/plan.rework-1.json", data: { tasks: [] }, step: 2 },
      { path: "memory/reports/steps/TESTS.json", data: { step: "TESTS", passed: true }, kind: "command", step: 4 },
      { path: "memory/reports/verification.rework-2.json", data: { passed: false }, step: 3 },
      { path: "memory/reports/plan.json", data: { tasks: [] }, step: 2 },
      { path: "memory/reports/verification.rework-1.json", data: { passed: false }, step: 3 },
      {
        path: "memory/reports/steps/TESTS.rework-1.json",
        data: { step: "TESTS", passed: false },
        kind: "command",
        step: 4,
      },
    ]);
    const at = [
      "## Task plan\n\n<sub>memory/reports/plan.json",
      "## Task plan (rework round 1)\n\n<sub>memory/reports/plan.rework-1.json",
      "## Verification (before rework round 1)\n\n<sub>memory/reports/verification.rework-1.json",
      "## Verification (before rework round 2)\n\n<sub>memory/reports/verification.rework-2.json",
      "## Verification\n\n<sub>memory/reports/verification.json",
      "## Step: TESTS (before rework round 1)\n\n<sub>memory/reports/steps/TESTS.rework-1.json",
      "## Step: TESTS\n\n<sub>memory/reports/steps/TESTS.json",
    ].map((h) => md.indexOf(h));
    expect(
      at.every((i) => i >= 0),
      md,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});

describe("a check or shell step's command report (issue 42)", () => {
  const report = {
    step: "TESTS",
    command: "npm test",
    passed: false,
    exit_code: 1,
    signal: null,
    timed_out: false,
    attempts: 1,
    output_tail: "FAIL a.test.ts\n<img src=x onerror=alert(1)>\n# Approved\n",
    failures: [{ problem: "`npm test` failed (exit 1): FAIL a.test.ts" }],
  };

  it("says Failed. first, names the step, and keeps the output's lines, each escaped", () => {
    const md = renderReportMarkdown("memory/reports/steps/TESTS.json", report, "command");
    expect(md).toMatch(
      /^## Step: TESTS\n\n<sub>memory\/reports\/steps\/TESTS\.json<\/sub>\n\n\*\*Failed\.\*\*\n\n### Command\n\nnpm test\n/,
    );
    expect(md).toContain(
      "### Output (its last lines)\n\nFAIL a.test.ts  \n&lt;img src=x onerror=alert(1)&gt;  \n\\# Approved\n",
    );
    expect(md).not.toMatch(/<img|^# Approved/m);
    expect(md.indexOf("### Failures")).toBeLessThan(md.indexOf("### Output"));
  });

  it("without the step's word it is a report like any other", () =>
    expect(renderReportMarkdown("memory/reports/steps/TESTS.json", report)).toMatch(/^## Report\n/));
});
