// What the LangGraph torture's writers write at step i of a chain, as pure functions, so the parent
// knows what every acknowledged checkpoint must read back as. Three channels change at different
// rates: `step` every step, `log` every third, `doc` (the big one) every tenth; a checkpoint whose
// channel did not change takes its value from an ancestor (the saver's carried values).

export const stepId = (chain, i) => `${chain}-${String(i).padStart(6, "0")}`;

/** Channel versions at step i: LangGraph's integer versions, one more at each change. */
export function versionsAt(i) {
  return { step: i + 1, log: Math.floor(i / 3) + 1, doc: Math.floor(i / 10) + 1 };
}

export function expectedValues(chain, i, bytes) {
  const logged = Array.from({ length: Math.floor(i / 3) + 1 }, (_, k) => `${chain}:${k * 3}`);
  return { step: i, log: logged, doc: `${chain}:${Math.floor(i / 10)}:${"d".repeat(bytes)}` };
}

/** The pending writes of step i, by task: what LangGraph's tasks of a superstep would write. */
export function pendingWritesOf(chain, i) {
  return {
    [`${chain}-a`]: [
      ["x", `a${i}`],
      ["y", { n: i, chain }],
    ],
    [`${chain}-b`]: [["x", `b${i}`]],
  };
}
