import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLEAR_SCREEN, watchScreen } from "./watch.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const until = (predicate: () => boolean) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const tick = setInterval(() => {
      if (predicate()) {
        clearInterval(tick);
        resolve();
      } else if (Date.now() - started > 5000) {
        clearInterval(tick);
        reject(new Error("timed out"));
      }
    }, 10);
  });

describe("watchScreen", () => {
  it("draws once, redraws when a file in the folder changes what it shows, never when nothing changed, and stops", async () => {
    const folder = mkdtempSync(join(tmpdir(), "dotagent-watch-"));
    dirs.push(folder);
    writeFileSync(join(folder, "state"), "one");
    const written: string[] = [];
    let draws = 0;
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    // A poll far slower than the test: the redraw comes from the folder's change.
    const done = watchScreen({
      draw: async () => (draws++, readFileSync(join(folder, "state"), "utf8")),
      folder,
      write: (t) => written.push(t),
      until: stopped,
      pollMs: 60_000,
      debounceMs: 5,
    });
    await until(() => written.length === 1);
    expect(written[0]).toBe(`${CLEAR_SCREEN}one\n`);
    writeFileSync(join(folder, "other"), "x"); // a change that shows nothing new
    await until(() => draws >= 2);
    writeFileSync(join(folder, "state"), "two");
    await until(() => written.length === 2);
    expect(written[1]).toBe(`${CLEAR_SCREEN}two\n`);
    stop();
    expect(await done).toBe(2);
    const after = draws;
    writeFileSync(join(folder, "state"), "three");
    await new Promise((r) => setTimeout(r, 50));
    expect(draws).toBe(after); // the watcher is closed
  });

  it("a folder that does not exist: the poll alone redraws", async () => {
    let n = 0;
    const written: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = watchScreen({
      draw: async () => `draw ${Math.min(++n, 3)}`,
      folder: join(tmpdir(), "dotagent-no-such-folder", String(process.pid)),
      write: (t) => written.push(t),
      until: stopped,
      pollMs: 5,
    });
    await until(() => written.length === 3);
    stop();
    await done;
    expect(written.map((w) => w.replace(CLEAR_SCREEN, ""))).toEqual(["draw 1\n", "draw 2\n", "draw 3\n"]);
  });
});
