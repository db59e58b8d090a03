import { describe, expect, it } from "vitest";
import { readNdjsonLines, type NdjsonLine } from "./ndjson-lines";
import { parseRecord } from "./record-kinds";

/** A stream of `chunks`, each enqueued as its own read (so lines split across reads). */
function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= chunks.length) return c.close();
      const x = chunks[i++];
      c.enqueue(typeof x === "string" ? enc.encode(x) : x);
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>, maxLineBytes = 64): Promise<NdjsonLine[]> {
  const out: NdjsonLine[] = [];
  for await (const l of readNdjsonLines(stream, { maxLineBytes })) out.push(l);
  return out;
}

describe("readNdjsonLines", () => {
  it("splits lines across chunk boundaries, drops \\r and blank lines but counts them, and marks a final line without its newline", async () => {
    const lines = await all(streamOf(['{"a":', '1}\r\n\n{"b"', ":2}\n", '{"c":3}']));
    expect(lines).toEqual([
      { line: 1, ok: true, text: '{"a":1}', terminated: true },
      { line: 3, ok: true, text: '{"b":2}', terminated: true },
      { line: 4, ok: true, text: '{"c":3}', terminated: false },
    ]);
  });

  it("a line over the bound is reported and skipped to its newline without being kept; the next line reads normally", async () => {
    const lines = await all(streamOf(["x".repeat(50), "y".repeat(50), "z".repeat(50), "\nok\n"]));
    expect(lines).toEqual([
      { line: 1, ok: false, code: "line_too_long", terminated: true },
      { line: 2, ok: true, text: "ok", terminated: true },
    ]);
  });

  it("bytes that are not UTF-8 are that line's error only; a multi-byte character split across chunks is fine", async () => {
    const euro = new TextEncoder().encode("€");
    const lines = await all(streamOf([new Uint8Array([0x61, 0xff, 0x0a]), euro.subarray(0, 1), euro.subarray(1), "\n"]));
    expect(lines).toEqual([
      { line: 1, ok: false, code: "invalid_utf8", terminated: true },
      { line: 2, ok: true, text: "€", terminated: true },
    ]);
  });

  it("stops at the total byte bound and says so", async () => {
    const state = { bytes: 0, overLimit: false };
    const out: NdjsonLine[] = [];
    for await (const l of readNdjsonLines(streamOf(["a\n", "b\n", "c\n"]), { maxLineBytes: 10, maxTotalBytes: 4, state })) out.push(l);
    expect(out.map((l) => l.line)).toEqual([1, 2]);
    expect(state.overLimit).toBe(true);
  });

  it("reads 100,000 generated records with bounded memory: the heap does not grow with the stream", async () => {
    const N = 100_000;
    let produced = 0;
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (produced >= N) return c.close();
        let s = "";
        for (let k = 0; k < 1000 && produced < N; k++, produced++) {
          s += JSON.stringify({ kind: "invoice", id: `in_${produced}`, accountId: "acc_1", status: "open", currency: "USD", totalMinor: 100, openMinor: 100, fees: [], dueDate: "2026-04-30", sourceVersion: 1, sourceUpdatedAt: "2026-03-01T10:00:00Z" }) + "\n";
        }
        c.enqueue(enc.encode(s));
      },
    });
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let count = 0;
    let valid = 0;
    let peak = 0;
    for await (const l of readNdjsonLines(stream, { maxLineBytes: 64 * 1024 })) {
      count++;
      if (l.ok) {
        const { kind, id, op, ...body } = JSON.parse(l.text) as Record<string, unknown>;
        if (parseRecord(kind, id, op, body).ok) valid++;
      }
      if (count % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    expect({ count, valid }).toEqual({ count: N, valid: N });
    // ~22 MB of NDJSON went through; what stays is garbage between collections, not the stream
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });
});
