// New bytes made mostly of old ones, in the old ones' memory: a state write that keeps most of the
// file it read (a task change at 10,000 tasks changes one element of 3.6 MB) moves the unchanged
// runs of the read's bytes to where they belong and writes the new pieces between them, instead
// of encoding the whole value again (state-json.ts). Pure: memory in, memory out.
//
// Why it is safe in place: the copies' sources are in increasing order and do not overlap, and so
// are all pieces' destinations. A copy moving left (destination at or before its source) is done
// left to right: the bytes it writes end at or before its own source's end, so before any later
// copy's source, and after any earlier copy's source (an earlier copy moving right ends its source
// before its destination, which ends before this one's). A copy moving right is done right to
// left, after those: what it writes lies after every earlier copy's source and over later copies
// already moved away. The new pieces are written last, over sources no longer needed.

/** `len` bytes copied from the memory at `from`, or new bytes. */
export type Piece = { from: number; len: number } | { bytes: Uint8Array };

/**
 * The pieces one after another: in `memory` itself (the bytes returned are its start) when they
 * fit in it, else in a new buffer. Copies' `from` must increase and not overlap.
 */
export function assembleInPlace(memory: Buffer, pieces: readonly Piece[]): Buffer {
  const at: number[] = new Array(pieces.length);
  let total = 0;
  let sourceEnd = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    at[k] = total;
    if ("from" in piece) {
      if (piece.from < sourceEnd || piece.from + piece.len > memory.length)
        throw new RangeError("assembleInPlace: copies must be in order, not overlap and lie in the memory");
      sourceEnd = piece.from + piece.len;
      total += piece.len;
    } else total += piece.bytes.length;
  }
  if (total > memory.length) {
    const out = Buffer.allocUnsafe(total);
    for (let k = 0; k < pieces.length; k++) {
      const piece = pieces[k]!;
      if ("from" in piece) memory.copy(out, at[k], piece.from, piece.from + piece.len);
      else out.set(piece.bytes, at[k]);
    }
    return out;
  }
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if ("from" in piece && at[k]! <= piece.from) memory.copyWithin(at[k]!, piece.from, piece.from + piece.len);
  }
  for (let k = pieces.length - 1; k >= 0; k--) {
    const piece = pieces[k]!;
    if ("from" in piece && at[k]! > piece.from) memory.copyWithin(at[k]!, piece.from, piece.from + piece.len);
  }
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if (!("from" in piece)) memory.set(piece.bytes, at[k]);
  }
  return memory.subarray(0, total);
}
