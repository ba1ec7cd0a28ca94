// One process writing to a DotagentSaver thread as LangGraph does, for the LangGraph torture
// (langgraph-torture.mjs): a put per step (its parent the step before), then the step's pending
// writes. Every call it got an answer for is acknowledged on stdout ("ack put <id>", "ack writes
// <id> <task>") right after it returned; the parent kills it (kill-at.mjs, or a timer) and checks
// that every acknowledged call is on disk whole.
//
//   node [--import kill-at.mjs] langgraph-child.mjs <saver.mjs> <dir> <thread> <chain> <steps> <bytes> [shared-checkpoint]
// <chain> prefixes this process's checkpoint ids; the run continues its chain from the newest
// checkpoint on disk. With a shared checkpoint, each step also writes one task's writes to it
// (the read-modify-write other processes do at the same time).
import { writeSync } from "node:fs";
import { expectedValues, pendingWritesOf, stepId, versionsAt } from "./langgraph-model.mjs";

const [saverPath, dir, thread, chain, stepsArg, bytesArg, shared] = process.argv.slice(2);
const { DotagentSaver } = await import(saverPath);
const saver = new DotagentSaver(dir, { lockWaitMs: 30_000 });
const steps = Number(stepsArg);
const bytes = Number(bytesArg);
const ack = (line) => writeSync(1, `ack ${line}\n`);

// Continue this chain from its newest checkpoint (acknowledged or not: a put that was written
// whole is the chain's next parent, as LangGraph would resume from it).
let start = 0;
for await (const tuple of saver.list({ configurable: { thread_id: thread, checkpoint_ns: "" } })) {
  const id = tuple.config.configurable.checkpoint_id;
  if (id.startsWith(`${chain}-`)) {
    start = Number(id.slice(chain.length + 1)) + 1;
    break;
  }
}
writeSync(1, `start ${start}\n`);

for (let i = start; i < start + steps; i++) {
  const id = stepId(chain, i);
  const parent = i === 0 ? undefined : stepId(chain, i - 1);
  const versions = versionsAt(i);
  const before = i === 0 ? {} : versionsAt(i - 1);
  const newVersions = Object.fromEntries(Object.entries(versions).filter(([channel, v]) => before[channel] !== v));
  const checkpoint = {
    v: 4,
    id,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    channel_values: expectedValues(chain, i, bytes),
    channel_versions: versions,
    versions_seen: { node: { step: versions.step } },
  };
  const config = await saver.put(
    { configurable: { thread_id: thread, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } },
    checkpoint,
    { source: "loop", step: i, parents: {}, chain },
    newVersions,
  );
  ack(`put ${id}`);
  for (const [task, writes] of Object.entries(pendingWritesOf(chain, i))) {
    await saver.putWrites(config, writes, task, `~${task}`);
    ack(`writes ${id} ${task}`);
  }
  if (shared) {
    const task = `${chain}-t${i}`;
    await saver.putWrites(
      { configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: shared } },
      [["crowd", task]],
      task,
    );
    ack(`writes ${shared} ${task}`);
  }
}
writeSync(1, "done\n");
