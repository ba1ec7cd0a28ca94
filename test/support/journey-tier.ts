// Which real-client tests `npm test` runs. CI (.ci/run, a fresh 2-core machine) keeps, for each
// client, the journey that kills it mid-batch and resumes it (Claude Code's in its interactive
// terminal; Claude Code also its print-mode end-to-end test and its clean print-mode journey with
// the cost bar); the others are the client's CPU for minutes each,
// so they run where a person asks for them: `npm run test:clients` (every real-client test at the
// size `npm test` would run it) and `npm run journey` (every point of every matrix). A change to
// the hooks, the skill or a client's install runs `npm run test:clients` before it lands
// (CONTRIBUTING.md).
const JOURNEY_ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

/** The real-client tests CI leaves out run too (DOTAGENT_JOURNEY_MORE=1, or every point with DOTAGENT_JOURNEY_ALL=1). */
export const JOURNEY_MORE = JOURNEY_ALL || process.env.DOTAGENT_JOURNEY_MORE === "1";
