import { describe, expect, it } from "vitest";
import { SeqFollower } from "./seq-follower";

/** A table whose rows become visible (commit) when the test says so, in any order. */
function table(initial: number[]) {
  const visible = new Set(initial);
  return {
    commit: (...seqs: number[]) => seqs.forEach((s) => visible.add(s)),
    source: {
      fetchAfter: async (after: number, take: number) => [...visible].filter((s) => s > after).sort((a, b) => a - b).slice(0, take).map((seq) => ({ seq })),
      fetchIn: async (seqs: number[]) => seqs.filter((s) => visible.has(s)).map((seq) => ({ seq })),
      fetchLast: async () => Math.max(0, ...visible),
    },
  };
}

describe("SeqFollower", () => {
  it("delivers rows committed after it started, once each, in seq order", async () => {
    const t = table([1, 2]);
    const f = new SeqFollower(t.source, { batch: 10, gapGraceMs: 30_000, maxGaps: 100 });
    expect(await f.poll(0)).toEqual([]);
    t.commit(3, 4);
    expect((await f.poll(1)).map((r) => r.seq)).toEqual([3, 4]);
    expect(await f.poll(2)).toEqual([]);
  });

  it("delivers a row whose transaction committed after a later-numbered one's", async () => {
    const t = table([]);
    const f = new SeqFollower(t.source, { batch: 10, gapGraceMs: 30_000, maxGaps: 100 });
    await f.poll(0);
    t.commit(1, 3); // 2 was inserted before 3 but is still in flight
    expect((await f.poll(1_000)).map((r) => r.seq)).toEqual([1, 3]);
    t.commit(2);
    expect((await f.poll(2_000)).map((r) => r.seq)).toEqual([2]);
    expect(f.gaps).toBe(0);
  });

  it("gives a number up after the grace (a rolled-back insert) and keeps at most maxGaps", async () => {
    const t = table([]);
    const f = new SeqFollower(t.source, { batch: 10, gapGraceMs: 30_000, maxGaps: 3 });
    await f.poll(0);
    t.commit(2);
    await f.poll(1_000);
    expect(f.gaps).toBe(1);
    await f.poll(40_000);
    expect(f.gaps).toBe(0);
    t.commit(10);
    await f.poll(41_000);
    expect(f.gaps).toBe(3);
  });

  it("reads at most a batch per poll and the rest on the next", async () => {
    const t = table([]);
    const f = new SeqFollower(t.source, { batch: 2, gapGraceMs: 30_000, maxGaps: 100 });
    await f.poll(0);
    t.commit(1, 2, 3);
    expect((await f.poll(1)).map((r) => r.seq)).toEqual([1, 2]);
    expect((await f.poll(2)).map((r) => r.seq)).toEqual([3]);
  });
});
