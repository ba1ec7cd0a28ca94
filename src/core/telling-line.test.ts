import { describe, expect, it } from "vitest";
import { tellingLine } from "./telling-line.js";

describe("tellingLine: the line of a failed command's output that says what failed", () => {
  it.each<[string, string, string]>([
    [
      "npm's notice after the failure (issue 42)",
      "> app@1.0.0 test\n> node test.js\n\nFAIL: login returns 500 for a + in the password\nnpm notice\nnpm notice New major version of npm available! 10.8.2 -> 11.0.0\nnpm notice To update run: npm install -g npm@11.0.0\nnpm notice\n",
      "FAIL: login returns 500 for a + in the password",
    ],
    [
      "npm's error lines after the failure",
      "Error: expected 200, got 500\n    at login.test.js:4:9\nnpm error Lifecycle script `test` failed with error:\nnpm error code 1\nnpm error path /p\nnpm error command failed\nnpm error command sh -c node test.js\n",
      "Error: expected 200, got 500",
    ],
    [
      "vitest: the assertion, not the summary",
      " FAIL  test/login.test.ts > login > returns 200\nAssertionError: expected 500 to be 200\n\n Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n   Start at  12:00:01\n   Duration  420ms\n",
      "AssertionError: expected 500 to be 200",
    ],
    [
      "pytest",
      "test_login.py F\n=== FAILURES ===\nFAILED test_login.py::test_plus - assert 500 == 200\n=== 1 failed in 0.03s ===\n",
      "FAILED test_login.py::test_plus - assert 500 == 200",
    ],
    ["TAP", "ok 1 - form\nnot ok 2 - login with +\n# tests 2\n# fail 1\n", "not ok 2 - login with +"],
    [
      "no failure word: the last line",
      "building…\nsrc/a.ts(3,1): cannot find name 'x'\n",
      "src/a.ts(3,1): cannot find name 'x'",
    ],
    [
      "colours and progress redraws are what stays on screen",
      "\u001b[31m✗ login\u001b[0m\nprogress 10%\rprogress 100%\n",
      "✗ login",
    ],
    [
      "only an epilogue: that is what there is",
      "npm notice\nnpm notice New minor version\n",
      "npm notice New minor version",
    ],
    ["nothing", "\n\n", ""],
  ])("%s", (_name, tail, expected) => expect(tellingLine(tail)).toBe(expected));

  it("a long line is cut to 160 characters", () => {
    const line = tellingLine(`FAIL ${"x".repeat(300)}`);
    expect(line).toHaveLength(160);
    expect(line.endsWith("…")).toBe(true);
  });
});
