// A CLI command working on a large state (execution.json at 10,000 tasks: 3.6 MB of text, some 10 MB
// of objects once parsed) keeps V8's young generation at its start size.
//
// Why: V8 doubles its young generation (1 MB a half at start, 8 MB here after three doublings)
// while much of what it allocates survives, as a large parse result does. Each doubling hands out
// memory never touched before, and on a small VM every fresh 4 KB page costs a page fault of
// 20–75 µs: a 10,000-task `task complete` touched some 1,000 pages more for it, and more again
// with the garbage of its write spread over the grown space. Kept at its start size, the young
// generation reuses the same pages; what lives on is moved to the old generation sooner, where
// the parsed state ends anyway.
//
// How: V8 reads its growth factor at each growth (not only at start-up), so setting it to 1 from
// here takes effect at once. V8's flags are part of the check a code cache must pass (boot.ts
// compiled the hot half with a blob made under the default flags, and makes a new one as the
// process exits when there was none), so the default is put back first thing at exit. A factor
// the person set themselves (NODE_OPTIONS, node's arguments) is left as it is.
const FLAG = "--semi-space-growth-factor";
/** V8's default, put back at exit. */
const DEFAULT_FACTOR = 2;

let allowed = false;
let kept = false;

/**
 * Lets a large state read keep the young generation small (the CLI, whose process is its own); a
 * program using dotagent as a library keeps V8's flags as it set them.
 */
export function allowYoungGenerationKept(): void {
  allowed = true;
}

/** Called on reading a large state file: from now until exit, the young generation stays as it is. */
export function keepYoungGenerationSmall(): void {
  if (!allowed || kept) return;
  kept = true;
  const own = /semi[-_]space[-_]growth[-_]factor/;
  if (process.execArgv.some((a) => own.test(a)) || own.test(process.env.NODE_OPTIONS ?? "")) return;
  const v8 = process.getBuiltinModule("node:v8");
  v8.setFlagsFromString(`${FLAG}=1`);
  process.prependOnceListener("exit", () => v8.setFlagsFromString(`${FLAG}=${DEFAULT_FACTOR}`));
}
