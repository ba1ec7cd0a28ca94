// What a terminal shows after a program wrote `raw` to it: the lines of the screen and its
// scrollback, as text. Just enough of a VT100 for dotagent's output and the prompts library:
// CR, LF, BS, cursor up/down/left/right and to a column (CSI A B C D G), erase in line (CSI K,
// 2K) and below (CSI J); other escape sequences (colours, cursor visibility) are dropped.
// Every character is one column wide. Plain JavaScript so scripts/capture-run.mjs runs without a
// build; the tests import it too (test/run-terminal.test.ts).

const CSI = /^\u001b\[([0-9;?]*)([A-Za-z])/;

/** The screen's lines, top to bottom, trailing spaces trimmed. */
export function screenLines(raw) {
  const rows = [[]];
  let row = 0;
  let col = 0;
  const line = () => {
    while (rows.length <= row) rows.push([]);
    return rows[row];
  };
  for (let i = 0; i < raw.length;) {
    const ch = raw[i];
    if (ch === "\u001b") {
      const m = CSI.exec(raw.slice(i, i + 32));
      if (m === null) {
        i += raw[i + 1] === "[" ? 2 : 2; // an escape this does not know: skip ESC and the next character
        continue;
      }
      const n = m[1] === "" || m[1].startsWith("?") ? 1 : Math.max(1, Number(m[1].split(";")[0]) || 1);
      const arg = m[1];
      switch (m[2]) {
        case "A":
          row = Math.max(0, row - n);
          break;
        case "B":
          row += n;
          break;
        case "C":
          col += n;
          break;
        case "D":
          col = Math.max(0, col - n);
          break;
        case "G":
          col = n - 1;
          break;
        case "K":
          if (arg === "2") line().length = 0;
          else if (arg === "1") line().fill(" ", 0, col);
          else line().length = Math.min(line().length, col);
          break;
        case "J":
          line().length = Math.min(line().length, col);
          rows.length = row + 1;
          break;
        default:
          break; // colours, cursor visibility: nothing to show
      }
      i += m[0].length;
      continue;
    }
    i++;
    if (ch === "\r") col = 0;
    else if (ch === "\n") row++;
    else if (ch === "\b") col = Math.max(0, col - 1);
    else if (ch === "\u0007") continue;
    else {
      const cells = line();
      while (cells.length < col) cells.push(" ");
      cells[col] = ch;
      col++;
    }
  }
  return rows.map((cells) => cells.join("").trimEnd());
}
