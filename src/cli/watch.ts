// A screen that redraws itself when the state changes (`dotagent tasks --watch`): a change in the
// watched folder (an atomic write renames a file there) redraws at once, and a slow poll catches
// what leaves no file behind (an owner's process ending, a folder replaced). The screen is drawn
// only when its text changed, so an idle watch writes nothing. It ends when `until` settles (the
// CLI: Ctrl-C), with every timer and watcher closed, so the process exits by itself.
import { watch, type FSWatcher } from "node:fs";

/** Cursor home, then clear the screen: each drawing replaces the last one. */
export const CLEAR_SCREEN = "\u001b[H\u001b[2J";

export interface WatchScreen {
  /** The screen's text; errors are the caller's to turn into text (a watch never dies of one). */
  readonly draw: () => Promise<string>;
  /** Where a change means "draw again" (memory/state). Missing: the poll alone. */
  readonly folder: string;
  readonly write: (text: string) => void;
  /** Settles when the watch is to end. */
  readonly until: Promise<unknown>;
  readonly pollMs?: number;
  readonly debounceMs?: number;
}

/** Runs the screen until `until` settles; resolves with the number of drawings. */
export async function watchScreen(screen: WatchScreen): Promise<number> {
  let shown: string | undefined;
  let drawings = 0;
  let busy: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const redraw = async (): Promise<void> => {
    if (busy !== undefined) {
      again = true;
      return busy;
    }
    busy = (async () => {
      do {
        again = false;
        const text = await screen.draw();
        if (!stopped && text !== shown) {
          shown = text;
          drawings++;
          screen.write(`${CLEAR_SCREEN}${text}\n`);
        }
      } while (again && !stopped);
    })().finally(() => {
      busy = undefined;
    });
    return busy;
  };
  let timer: NodeJS.Timeout | undefined;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void redraw(), screen.debounceMs ?? 50);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(screen.folder, soon);
    watcher.on("error", () => watcher?.close());
  } catch {
    // no such folder yet (no workflow), or no inotify: the poll alone
  }
  const poll = setInterval(() => void redraw(), screen.pollMs ?? 2000);
  try {
    await Promise.race([redraw(), screen.until]);
    await screen.until;
  } finally {
    stopped = true;
    clearInterval(poll);
    clearTimeout(timer);
    watcher?.close();
  }
  await busy;
  return drawings;
}
