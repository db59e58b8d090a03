/**
 * Follows a table of rows numbered by an increasing sequence (`seq`: audit events, ended sessions)
 * by polling, delivering each committed row once even when rows commit out of `seq` order.
 *
 * PostgreSQL hands out sequence numbers at insert, not at commit: a transaction that inserted
 * seq 7 may commit after one that inserted seq 8, and a rolled-back one leaves 7 unused forever. A
 * follower that only asked for `seq > last seen` would skip 7. So every number below the highest
 * seen that has not been seen is a *gap*, asked for again on each poll (`fetchIn`, a primary-key
 * lookup) until it appears or is older than `gapGraceMs` (longer than any transaction may stay
 * open: it rolled back, or never will commit). At most `maxGaps` gaps are kept (the oldest are
 * given up first). Rows of one run keep their order: a later decision on a run takes the run's lock
 * after the earlier one committed, so its number is higher and it is never seen first.
 *
 * On SQLite (one writer, numbers in commit order, none left by a rollback of a rowid table) no gap
 * arises and the follower is a plain `seq >` reader.
 */
export interface SeqFollowerSource<R extends { seq: number }> {
  /** Rows with `seq > after`, ascending, at most `take`. */
  fetchAfter(after: number, take: number): Promise<R[]>;
  /** Rows whose `seq` is one of `seqs` (any order). */
  fetchIn(seqs: number[]): Promise<R[]>;
  /** The highest `seq` now (0 when the table is empty): where following starts. */
  fetchLast(): Promise<number>;
}

/** Options of `SeqFollower`: rows per poll, how long a gap is waited for (ms), gaps kept at most. */
export interface SeqFollowerOptions {
  batch: number;
  gapGraceMs: number;
  maxGaps: number;
}

/** See the module comment. One instance per followed table; `poll` is not reentrant (the caller serialises). */
export class SeqFollower<R extends { seq: number }> {
  #last: number | null = null;
  /** Unseen numbers below `#last` → when they were first missed (ms). */
  readonly #gaps = new Map<number, number>();

  constructor(
    private readonly source: SeqFollowerSource<R>,
    private readonly opts: SeqFollowerOptions,
  ) {}

  /**
   * The rows committed since the previous poll (the first poll only starts following and returns
   * none): late rows that filled a gap first, then new rows, each in `seq` order. `now` in ms.
   */
  async poll(now = Date.now()): Promise<R[]> {
    if (this.#last === null) {
      this.#last = await this.source.fetchLast();
      return [];
    }
    for (const [seq, since] of this.#gaps) if (now - since > this.opts.gapGraceMs) this.#gaps.delete(seq);
    const late = this.#gaps.size ? (await this.source.fetchIn([...this.#gaps.keys()])).sort((a, b) => a.seq - b.seq) : [];
    for (const r of late) this.#gaps.delete(r.seq);
    const fresh = await this.source.fetchAfter(this.#last, this.opts.batch);
    for (const r of fresh) {
      for (let s = Math.max(this.#last + 1, r.seq - this.opts.maxGaps); s < r.seq; s++) this.#gaps.set(s, now);
      this.#last = r.seq;
    }
    // Bounded: the oldest gaps (lowest numbers, inserted first) go first.
    for (const seq of this.#gaps.keys()) {
      if (this.#gaps.size <= this.opts.maxGaps) break;
      this.#gaps.delete(seq);
    }
    return [...late, ...fresh];
  }

  /** Numbers currently waited for (tests). */
  get gaps(): number {
    return this.#gaps.size;
  }
}
