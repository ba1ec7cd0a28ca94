// One JSON value per line over a pipe, as the CLI host and its thread talk (cli-host-process.mjs,
// cli-host-worker.mjs). Lines are cut in bytes and each is decoded whole: a chunk can end inside a
// character, and only a line's newline byte (never part of a UTF-8 character) ends it. Each byte is
// looked at once: a request of megabytes (a hook's large input) arrives in 64 kB chunks, and
// searching all that had arrived again at each chunk cost seconds (issue 41).

/** A `data` listener that calls `onValue` with each whole line's JSON value, in order. */
export function jsonLines(onValue) {
  let held = [];
  return (chunk) => {
    let at = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, at)) {
      held.push(chunk.subarray(at, newline));
      const line = held.length === 1 ? held[0] : Buffer.concat(held);
      held = [];
      at = newline + 1;
      onValue(JSON.parse(line.toString("utf8")));
    }
    if (at < chunk.length) held.push(chunk.subarray(at));
  };
}
