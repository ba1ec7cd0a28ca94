// The line of a failed command's output that says what failed, for a person's one-line summary
// and a rework task's title. The last line is often a tool's epilogue (npm's `npm notice` about a
// new version, `npm error` lines naming the script and its exit code, a test runner's timing):
// the telling line is the last one that reads as a failure, else the last line that is not such
// an epilogue. Pure.

/** Lines a tool prints after the failure, which say nothing about it. */
const EPILOGUE = [
  /^npm (?:notice|warn|WARN)\b/,
  /^npm (?:error|ERR!)(?: (?:code|path|command|errno|syscall|Lifecycle script|A complete log|Failed at|This is probably|Exit status|\S+@\S+ \S+:|in workspace|location))/,
  /^npm (?:error|ERR!)\s*$/,
  /^(?:error|ERROR|Error): (?:command failed|Command failed|script .* exited|process exited|Process completed) with exit code \d+/i,
  /^(?:ELIFECYCLE|ERR_PNPM_\w+)\b/,
  /^\s*(?:Duration|Start at|Time|Ran all test suites|Done in|Test Files|Tests|Test Suites|Snapshots)\b/i,
];

/** A line that names a failure (✗ ✘ × as escapes: the built CLI stays ASCII, see scripts/build.mjs). */
const FAILING =
  /\b(?:FAIL(?:ED|URE|S)?|ERROR|Error|Exception|Assertion|assert(?:ion)?|expected|not ok|panic(?:ked)?|Traceback)\b|[\u2717\u2718\u00d7]|^\s*E\s{2,}/;

const MAX = 160;

/** The telling line of `tail` (a command's last output), trimmed to 160 characters; "" when there is none. */
export function tellingLine(tail: string): string {
  const lines = tail
    // Colour and other terminal escapes, then carriage-return progress: only what stays on screen.
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")
    .split("\n")
    .map((l) => (l.split("\r").pop() ?? "").trim())
    .filter((l) => l !== "");
  const meaningful = lines.filter((l) => !EPILOGUE.some((e) => e.test(l)));
  const line = meaningful.findLast((l) => FAILING.test(l)) ?? meaningful.at(-1) ?? lines.at(-1) ?? "";
  return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
}
