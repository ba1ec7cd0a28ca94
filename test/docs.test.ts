// The README is for users (issue 24): short, install first, real commands with the package's real
// name, links that lead somewhere. Sizes the docs quote are checked by test/package.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./support/cli.js";

const read = (rel: string) => readFileSync(join(REPO, rel), "utf8");
const README = read("README.md");
const DOCS = [
  "README.md",
  "SPEC.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Every file under src/ and scripts/ (what users see in messages and what contributors run). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(REPO, dir))) {
      const rel = `${dir}/${name}`;
      if (statSync(join(REPO, rel)).isDirectory()) walk(rel);
      else if (/\.(ts|mjs)$/.test(name)) out.push(rel);
    }
  };
  walk("src");
  walk("scripts");
  return out;
}

describe("README", () => {
  it("is at most 200 lines, and its first section is Install", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(200);
    expect(README.split("\n").find((line) => line.startsWith("## "))).toBe("## Install");
  });

  it("installs the package by its name, the plugin from the real repository, and says what the unattended agents may do", () => {
    expect(README).toContain("npm install -g dotagent-workflow");
    expect(README).toContain("claude plugin marketplace add dotagent-workflow/dotagent");
    expect(README).toContain("claude plugin install dotagent@dotagent");
    expect(README).toMatch(/executor and qa\s+also have Bash/);
    expect(README).toContain("npm ci && npm run example");
    expect(README).toMatch(/^npm test\b/m);
  });

  it("every relative link leads to a file of the repository", () => {
    for (const doc of DOCS) {
      for (const m of read(doc).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        expect(existsSync(join(REPO, dirname(doc), target)), `${doc} links ${target}`).toBe(true);
      }
    }
  });
});

describe("the package's name everywhere", () => {
  it("no doc, message or script tells anyone to install `dotagent` (another project's package)", () => {
    for (const file of [...DOCS, ...sources()]) {
      expect(read(file), file).not.toMatch(/npm (install|i) (-g|--global) dotagent(?![-\w])/);
      expect(read(file), file).not.toMatch(/(from|import\() ?["']dotagent["']/);
      expect(read(file), file).not.toMatch(/marketplace add <this repository/);
    }
  });
});

describe("figures the docs quote come from scripts", () => {
  it("docs/evidence.md's model-turns table is what scripts/journey-figures.mjs prints from docs/figures/", async () => {
    const { journeyTable } = (await import(join(REPO, "scripts/journey-figures.mjs"))) as {
      journeyTable: () => string;
    };
    const block = /<!-- journey-figures -->\n([\s\S]*?)\n<!-- \/journey-figures -->/.exec(
      read("docs/evidence.md"),
    )?.[1];
    expect(block).toBe(journeyTable());
  });

  it("the README's figures line is what scripts/journey-figures.mjs prints from docs/figures/", async () => {
    const { readmeLine } = (await import(join(REPO, "scripts/journey-figures.mjs"))) as { readmeLine: () => string };
    const block = /<!-- turns -->\n([\s\S]*?)\n<!-- \/turns -->/.exec(README)?.[1];
    expect(block).toBe(readmeLine());
  });

  it("docs/evidence.md's crash matrices are what scripts/journey-figures.mjs prints from docs/figures/", async () => {
    const { matrixTables } = (await import(join(REPO, "scripts/journey-figures.mjs"))) as {
      matrixTables: () => string;
    };
    const block = /<!-- crash-matrix -->\n([\s\S]*?)\n<!-- \/crash-matrix -->/.exec(read("docs/evidence.md"))?.[1];
    expect(block).toBe(matrixTables());
    expect(matrixTables()).toMatch(/kill points/);
  });

  it("docs/evidence.md's reading cost is the one the print journey recorded", async () => {
    const { readingCostTable } = (await import(join(REPO, "scripts/journey-figures.mjs"))) as {
      readingCostTable: () => string;
    };
    const block = /<!-- reading-cost -->\n([\s\S]*?)\n<!-- \/reading-cost -->/.exec(read("docs/evidence.md"))?.[1];
    expect(block).toBe(readingCostTable());
  });

  it("docs/evidence.md's parallel figure is the one the parallel journey recorded", async () => {
    const { parallelLine } = (await import(join(REPO, "scripts/journey-figures.mjs"))) as {
      parallelLine: () => string;
    };
    const block = /<!-- parallel -->\n([\s\S]*?)\n<!-- \/parallel -->/.exec(read("docs/evidence.md"))?.[1];
    expect(block).toBe(parallelLine());
  });

  it("docs/evidence.md's worktree wall times are the ones the worktree journey recorded", async () => {
    const { worktreeTable } = (await import(join(REPO, "scripts/journey-figures.mjs"))) as {
      worktreeTable: () => string;
    };
    const block = /<!-- worktree-wall-time -->\n([\s\S]*?)\n<!-- \/worktree-wall-time -->/.exec(
      read("docs/evidence.md"),
    )?.[1];
    expect(block).toBe(worktreeTable());
    expect(block).toMatch(/\| worktrees, dotagent commits \| \d/);
  });

  it("docs/evidence.md's LangGraph torture table is what scripts/langgraph-torture.mjs prints from docs/figures/", async () => {
    const { langgraphTable } = (await import(join(REPO, "scripts/langgraph-torture.mjs"))) as {
      langgraphTable: () => string;
    };
    const block = /<!-- langgraph-torture -->\n([\s\S]*?)\n<!-- \/langgraph-torture -->/.exec(
      read("docs/evidence.md"),
    )?.[1];
    expect(block).toBe(langgraphTable());
    expect(block).toMatch(/\| acknowledged calls lost · checkpoints unreadable \| 0 · 0 \| 0 · 0 \|/);
  });

  it("docs/evidence.md's LangGraph bench table is what scripts/langgraph-bench.mjs prints from docs/figures/", async () => {
    const { benchTable } = (await import(join(REPO, "scripts/langgraph-bench.mjs"))) as { benchTable: () => string };
    const block = /<!-- langgraph-bench -->\n([\s\S]*?)\n<!-- \/langgraph-bench -->/.exec(
      read("docs/evidence.md"),
    )?.[1];
    expect(block).toBe(benchTable());
    expect(block).toMatch(/\| put \| [\d,.]+\/s \| [\d,.]+\/s \| \d+\.\d\d× \|/);
  });

  it("docs/evidence.md's start-up table is what scripts/bench-table.mjs prints from docs/figures/", async () => {
    const { startupTable } = (await import(join(REPO, "scripts/bench-table.mjs"))) as { startupTable: () => string };
    const block = /<!-- startup-bench -->\n([\s\S]*?)\n<!-- \/startup-bench -->/.exec(read("docs/evidence.md"))?.[1];
    expect(block).toBe(startupTable());
    expect(block).toMatch(/\| `status --json` \| 20 \| [\d.]+ ms \(\d\.\d\d×\) \| [\d.]+ ms \(\d\.\d\d×\) \|/);
  });

  it("the README's captured session is the one npm run capture-session wrote into docs/terminal-session.md", () => {
    const inReadme = /<!-- terminal-session -->\n```text\n([\s\S]*?)\n```\n<!-- \/terminal-session -->/.exec(
      README,
    )?.[1];
    const inDocs = /```text\n([\s\S]*?)\n```/.exec(read("docs/terminal-session.md"))?.[1];
    expect(inReadme).toBeDefined();
    expect(inReadme).toBe(inDocs);
    expect(inReadme).toContain("❯ /develop add login");
    expect(inReadme).toContain("$ claude -r");
  });
});

describe("docs/architecture.md's map", () => {
  // Issue 41: the map had fallen 69 files behind the tree by a grep of the whole doc, 101 counted
  // folder by folder. Walked with node:fs, not git, so a clean clone or an unpacked tarball checks
  // the same. A file is looked for in the block of the longest folder heading that holds it
  // (src/cli/commands/ before src/cli/), so a name two folders share (history.ts, install.ts) is
  // written in each folder's own block; a name counts only whole (context.ts is not op-context.ts).
  const map = /^## The map\n([\s\S]*?)^## /m.exec(read("docs/architecture.md"))?.[1] ?? "";
  const code = /```\n([\s\S]*?)\n```/.exec(map)?.[1] ?? "";
  const walk = (dir: string, keep: (name: string) => boolean): string[] =>
    readdirSync(join(REPO, dir), { recursive: true, encoding: "utf8" })
      .map((rel) => `${dir}/${rel.split("\\").join("/")}`)
      .filter((rel) => keep(rel.slice(rel.lastIndexOf("/") + 1)) && statSync(join(REPO, rel)).isFile());
  const isSource = (name: string) =>
    name.endsWith(".ts") && !/\.(test|test-support|d)\.ts$/.test(name) && name !== "test-support.ts";
  const names = (text: string) => [...text.matchAll(/(?<![\w.*-])[\w./-]*[\w-]\.ts\b/g)].map((m) => m[0]);

  it("names every source file under src/ in its folder's block, and no .ts file that is gone", () => {
    expect(code).toContain("src/core/");
    // The blocks: a line at the left margin opens one, headed by its first word (src/core/, src/index.ts).
    const blocks: { heading: string; text: string }[] = [];
    for (const line of code.split("\n")) {
      if (/^\S/.test(line)) blocks.push({ heading: line.split(/\s/)[0]!, text: line });
      else if (blocks.length > 0) blocks[blocks.length - 1]!.text += `\n${line}`;
    }
    const missing: string[] = [];
    for (const file of walk("src", isSource)) {
      const block = blocks
        .filter((b) => file.startsWith(b.heading))
        .sort((a, b) => b.heading.length - a.heading.length)[0];
      if (!block || !names(block.text).some((name) => `/${file}`.endsWith(`/${name}`))) missing.push(file);
    }

    const known = new Set(
      [...walk("src", (n) => n.endsWith(".ts")), ...walk("test", (n) => n.endsWith(".ts"))].map((rel) =>
        rel.slice(rel.lastIndexOf("/") + 1),
      ),
    );
    const stale = names(code).filter((name) =>
      name.includes("/") ? !existsSync(join(REPO, name)) && !existsSync(join(REPO, "src", name)) : !known.has(name),
    );
    // Both lists in one failure: the source files the map does not name, the names it keeps of files that are gone.
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
  });
});
