/**
 * One line of an NDJSON stream as `readNdjsonLines` yields it: its 1-based number and its text,
 * or why it could not be read — `line_too_long` (more than `maxLineBytes` bytes; the rest of it
 * was skipped unread), `invalid_utf8` (bytes that are not UTF-8). `terminated` is false only for a
 * final line the stream ended without a newline after (a caller may call it cut mid-way).
 */
export type NdjsonLine =
  | { line: number; ok: true; text: string; terminated: boolean }
  | { line: number; ok: false; code: "line_too_long" | "invalid_utf8"; terminated: boolean };

/** Where reading stopped early: the stream passed `maxTotalBytes`. */
export interface NdjsonReadState {
  /** Bytes read so far. */
  bytes: number;
  /** True when reading stopped because the stream passed `maxTotalBytes`; the line being read then is not yielded. */
  overLimit: boolean;
}

const NEWLINE = 0x0a;

/**
 * Reads `stream` line by line (`\n`, an optional `\r` before it dropped), with memory bounded by
 * `maxLineBytes` plus one chunk of the stream, whatever the stream's length: a line longer than
 * `maxLineBytes` is not buffered — its bytes are dropped up to the next newline and it is yielded
 * as `line_too_long`. Blank lines are counted but not yielded. Each line is decoded as strict
 * UTF-8 (`invalid_utf8` otherwise). When the stream passes `maxTotalBytes`, reading stops:
 * `state.overLimit` is set and the stream cancelled. Pure Web Streams, no I/O of its own.
 */
export async function* readNdjsonLines(
  stream: ReadableStream<Uint8Array>,
  opts: { maxLineBytes: number; maxTotalBytes?: number; state?: NdjsonReadState },
): AsyncGenerator<NdjsonLine> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const state = opts.state ?? { bytes: 0, overLimit: false };
  const maxTotal = opts.maxTotalBytes ?? Infinity;
  const reader = stream.getReader();
  let parts: Uint8Array[] = [];
  let size = 0;
  let skipping = false; // inside a line already known too long
  let line = 0;

  const finish = (terminated: boolean): NdjsonLine | null => {
    line++;
    if (skipping) {
      skipping = false;
      parts = [];
      size = 0;
      return { line, ok: false, code: "line_too_long", terminated };
    }
    const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const body = bytes.subarray(0, end);
    if (isBlank(body)) return null;
    try {
      return { line, ok: true, text: decoder.decode(body), terminated };
    } catch {
      return { line, ok: false, code: "invalid_utf8", terminated };
    }
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      state.bytes += value.byteLength;
      if (state.bytes > maxTotal) {
        state.overLimit = true;
        void reader.cancel().catch(() => {});
        return;
      }
      let from = 0;
      while (from < value.length) {
        const nl = value.indexOf(NEWLINE, from);
        const end = nl < 0 ? value.length : nl;
        if (!skipping) {
          const piece = value.subarray(from, end);
          if (size + piece.length > opts.maxLineBytes) {
            skipping = true;
            parts = [];
            size = 0;
          } else if (piece.length > 0) {
            parts.push(piece.slice());
            size += piece.length;
          }
        }
        if (nl < 0) break;
        const out = finish(true);
        if (out) yield out;
        from = nl + 1;
      }
    }
    if (size > 0 || skipping) {
      const out = finish(false);
      if (out) yield out;
    }
  } finally {
    reader.releaseLock();
  }
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
