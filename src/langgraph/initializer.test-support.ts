// The conformance suite's initializer for DotagentSaver: each checkpointer the suite creates gets a
// fresh temp folder (the suite requires instances not to see each other's data), removed when the
// suite destroys it. The default export is what `validate-checkpointer` imports; the conformance
// test passes the same object to validate().
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { DotagentSaver } from "./saver.js";

const folders = new WeakMap<DotagentSaver, string>();

const initializer: CheckpointSaverTestInitializer<DotagentSaver> = {
  checkpointerName: "dotagent-workflow/langgraph",
  createCheckpointer() {
    const dir = mkdtempSync(join(tmpdir(), "dotagent-langgraph-"));
    const saver = new DotagentSaver(join(dir, "threads"));
    folders.set(saver, dir);
    return saver;
  },
  destroyCheckpointer(saver) {
    const dir = folders.get(saver);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  },
};

export default initializer;
