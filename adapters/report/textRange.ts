// A log file's lines from a byte offset on, each passed through a text transform (the pseudonymiser), streamed:
// read 64 KiB at a time, split at '\n' bytes (never inside a UTF-8 character), one line held at a time. A reading
// that starts inside a line skips to the next line's start, so a cut file begins with a whole line. A line longer than
// `maxLineBytes` (1 MiB) is transformed in pieces of that size (a path cut there may escape the transform: documented).
// Without a transform the bytes are passed on unchanged.
import { open } from 'node:fs/promises';

const PIECE = 64 * 1024;
const MAX_LINE = 1 << 20;
const NEWLINE = 0x0a;

export interface TextRangeOptions {
  /** Start reading here (the first whole line at or after it). */
  from?: number;
  transform?: (text: string) => string;
  maxLineBytes?: number;
}

/** The transformed text of `path` from `from` on, as UTF-8 pieces. */
export async function* textRange(path: string, options: TextRangeOptions = {}): AsyncGenerator<Uint8Array> {
  const transform = options.transform;
  const maxLine = options.maxLineBytes ?? MAX_LINE;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const file = await open(path, 'r');
  try {
    let position = options.from ?? 0;
    let skipping = false;
    if (position > 0) {
      const before = Buffer.alloc(1);
      await file.read(before, 0, 1, position - 1);
      skipping = before[0] !== NEWLINE;
    }
    let pending: Buffer = Buffer.alloc(0);
    const buffer = Buffer.allocUnsafe(PIECE);
    // Without a transform the bytes go out as they are (no decoding: nothing replaced, the length kept).
    const emit = (bytes: Buffer): Uint8Array => (transform ? encoder.encode(transform(decoder.decode(bytes))) : new Uint8Array(bytes));
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, PIECE, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let chunk: Buffer = buffer.subarray(0, bytesRead);
      if (skipping) {
        const end = chunk.indexOf(NEWLINE);
        if (end === -1) continue;
        chunk = chunk.subarray(end + 1);
        skipping = false;
      }
      let data: Buffer = pending.length > 0 ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
      const lastNewline = data.lastIndexOf(NEWLINE);
      if (lastNewline !== -1) {
        yield emit(data.subarray(0, lastNewline + 1));
        data = data.subarray(lastNewline + 1);
      }
      while (data.length > maxLine) {
        yield emit(data.subarray(0, maxLine));
        data = data.subarray(maxLine);
      }
      pending = Buffer.from(data);
    }
    if (pending.length > 0) yield emit(pending);
  } finally {
    await file.close();
  }
}
