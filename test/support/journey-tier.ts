// Which real-client tests `npm test` runs. CI (.ci/run, a fresh 2-core machine) keeps Claude
// Code's: the journey that kills it inside a background batch in its interactive terminal and
// resumes it, its print-mode end-to-end test, its write guard and `npm run demo` (`dotagent run`
// through the Agent SDK); Copilot's first gate, the person's reply recorded by its hooks; and
// Codex's refusal of an apply_patch into memory/state/. Every other journey (Codex's and
// Copilot's kill journeys, Claude Code's clean print-mode journey with the cost bar, the kill
// inside a Workflow-tool agent) is 15-40 s of CPU, and CI is CPU-bound on its two cores (issue
// 41: moving these four took ~110 s of CPU, ~55 s, off it), so they run where a person asks for
// them: `npm run test:clients` (every real-client test at the size `npm test` would run it) and
// `npm run journey` (every point of every matrix). A change to the hooks, the skill, an agent or
// a client's install runs `npm run test:clients` before it lands (CONTRIBUTING.md).
const JOURNEY_ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

/** The real-client tests CI leaves out run too (DOTAGENT_JOURNEY_MORE=1, or every point with DOTAGENT_JOURNEY_ALL=1). */
export const JOURNEY_MORE = JOURNEY_ALL || process.env.DOTAGENT_JOURNEY_MORE === "1";
