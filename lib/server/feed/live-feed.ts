import { EventEmitter } from "node:events";
import { nanoid } from "nanoid";
import type { Prisma } from "../../generated/prisma/client";
import type { LiveEvent } from "../../live/live-event";
import { resolveDatabaseUrl } from "../db/database-url";
import { prisma } from "../db/db";
import { onDrainRelease } from "../../net/drain.mjs";
import { listenUrl } from "../db/pooler";
import { SeqFollower } from "./seq-follower";
import { onLiveCommit } from "../db/commit-signal";
import { log } from "../../net/log.mjs";

/**
 * The live change feed: one in-process emitter per server process, fed only by what
 * the database has COMMITTED, so every instance on one database sees every change and nothing
 * that rolled back.
 *
 * - PostgreSQL: `appendAudit` sends `changeNotice`'s `pg_notify('plandesk_live', …)` in the
 *   statement that inserts the audit event, so in the event's own transaction — PostgreSQL delivers it to every listener at COMMIT and
 *   drops it on rollback. Each process LISTENs on one dedicated connection (`pg.Client`, outside
 *   the pool) and re-emits locally; presence heartbeats notify the same channel. No extra service.
 *   That connection goes to PLANDESK_DATABASE_LISTEN_URL when set (past a pooler), else to
 *   DATABASE_URL — except behind a transaction pooler (PLANDESK_DATABASE_POOLER=transaction), where
 *   a LISTEN would end with its transaction's server session: there the poller below runs instead
 *   (lib/server/db/pooler.ts `listenUrl`).
 * - The poller (SQLite, one database file, possibly several processes; or PostgreSQL behind a
 *   transaction pooler without a listen URL): one timer per process reads the audit events after
 *   the last one it saw (`seq >`, by primary key, at most FEED_BATCH per tick, `SeqFollower`, which
 *   also picks up an event that committed after a later-numbered one on PostgreSQL) and the
 *   presence rows that changed lately (`changedAt` index) every POLL_MS: an event reaches the
 *   streams within POLL_MS of its commit (plus the poll's queries), instead of at once. Each
 *   process sends about four indexed queries per POLL_MS while anyone is subscribed. A commit of
 *   this process that appended a live event reads at once (lib/server/db/commit-signal.ts;
 *   reads at least NUDGE_SPACING_MS apart), so a decision reaches the streams of the instance
 *   that made it in milliseconds; other processes' commits come with the next tick.
 *
 * Ended sessions travel the same way (`recordSessionEnd`: a `session_end` row the poller reads, and
 * on PostgreSQL a notification), so a disabled person's streams close within a poll on every instance.
 *
 * The transport starts with the first subscriber (`subscribeLive`) and stops with the last.
 */

/** Channel name of the PostgreSQL notifications. */
export const LIVE_CHANNEL = "plandesk_live";
/** SQLite poll period. */
export const POLL_MS = 1_000;
/**
 * The poller's period in ms: PLANDESK_LIVE_POLL_MS (100–600 000), else POLL_MS — how soon the
 * changes other processes committed reach this one's streams (its own commits read at once).
 */
export function livePollMs(env: Record<string, string | undefined>): number {
  const n = Number(env.PLANDESK_LIVE_POLL_MS);
  return env.PLANDESK_LIVE_POLL_MS?.trim() && Number.isInteger(n) && n >= 100 && n <= 600_000 ? n : POLL_MS;
}
/** Shortest time between two reads of the poller when commits of this process ask for them. */
const NUDGE_SPACING_MS = 50;
/** Audit events read per SQLite poll (the rest come on the next tick). */
const FEED_BATCH = 500;
/** This process (informational: which instance a presence heartbeat reached). */
export const INSTANCE_ID = nanoid(10);

/** Audit types that change nothing a page shows (refusals of one request). */
const QUIET_TYPES = new Set(["denied", "refused", "submission_refused", "edit_refused", "claim_refused", "fenced", "admin_change"]);

type Transport = { stop: () => Promise<void> };
const g = globalThis as unknown as { plandeskLive?: { emitter: EventEmitter; transport: Transport | null; count: number } };
const state = (g.plandeskLive ??= { emitter: Object.assign(new EventEmitter(), {}), transport: null, count: 0 });
state.emitter.setMaxListeners(0);

const provider = () => resolveDatabaseUrl().provider;

// A draining server (lib/net/drain.mjs) ends the streams first, then stops the transport (on
// PostgreSQL the LISTEN connection) with the other database connections.
onDrainRelease("the live feed's listener", async () => {
  const t = state.transport;
  state.transport = null;
  await t?.stop();
});

/** True when the audit type is one the live feed carries (not a refusal of a single request). */
export function isLiveType(type: string): boolean {
  return !QUIET_TYPES.has(type);
}

/**
 * Inside the transaction that appends an audit event of `runId`: on PostgreSQL queues a
 * notification that is delivered at commit (nothing on rollback). On SQLite a no-op (the poller
 * reads committed events). Never throws for a quiet type or an event without a run.
 */
export async function notifyChange(tx: Prisma.TransactionClient | typeof prisma, ev: { type: string; runId: string | null | undefined }): Promise<void> {
  const notice = changeNotice(ev);
  if (notice) await tx.$executeRaw`SELECT pg_notify(${notice.channel}, ${notice.payload})`;
}

/**
 * The `pg_notify(channel, payload)` that `notifyChange` sends for an audit event of `ev.type` on
 * run `ev.runId`, or null when it sends none (SQLite, a quiet type, no run) — for a writer that
 * sends the notification in the statement that appends the event (lib/server/audit-log/append-audit.ts).
 */
export function changeNotice(ev: { type: string; runId: string | null | undefined }): { channel: string; payload: string } | null {
  if (!ev.runId || !isLiveType(ev.type) || provider() !== "postgresql") return null;
  return { channel: LIVE_CHANNEL, payload: JSON.stringify({ k: "c", t: ev.type, r: ev.runId }) };
}

/** On PostgreSQL, broadcasts a presence event to every instance (the caller's own included). On SQLite a no-op (the poller reads `presence`). */
export async function notifyPresence(ev: Extract<LiveEvent, { kind: "presence" }>): Promise<void> {
  if (provider() !== "postgresql") return;
  await prisma.$executeRaw`SELECT pg_notify(${LIVE_CHANNEL}, ${JSON.stringify({ k: "p", e: ev })})`;
}

/**
 * Records that the sessions of `userId` ended or changed (signed out, disabled, role changed), in
 * `db`'s transaction when it is one: a `session_end` row (which the SQLite poller reads) and on
 * PostgreSQL a notification delivered to every instance at commit. Every open live stream of that
 * person then checks its session at once ({@link subscribeSessionEnds}), instead of at its next
 * heartbeat.
 */
export async function recordSessionEnd(db: Prisma.TransactionClient | typeof prisma, userId: string): Promise<void> {
  await db.sessionEnd.create({ data: { userId } });
  if (provider() === "postgresql") await db.$executeRaw`SELECT pg_notify(${LIVE_CHANNEL}, ${JSON.stringify({ k: "s", u: userId })})`;
}

/**
 * Calls `listener(userId)` whenever a session of that person ended on any instance (see
 * {@link recordSessionEnd}); delivered by the same transport as the live events, which runs while
 * anyone is subscribed with {@link subscribeLive}. Returns the unsubscribe function.
 */
export function subscribeSessionEnds(listener: (userId: string) => void): () => void {
  state.emitter.on("session", listener);
  return () => void state.emitter.off("session", listener);
}

/**
 * Calls `listener` for every live event of this database from now on (all desks: the caller
 * filters by the viewer's scope). Starts the transport with the first subscriber. Returns the
 * unsubscribe function (the last one stops the transport).
 */
export function subscribeLive(listener: (e: LiveEvent) => void): () => void {
  state.emitter.on("event", listener);
  state.count++;
  if (!state.transport) state.transport = startTransport();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    state.emitter.off("event", listener);
    state.count--;
    if (state.count === 0 && state.transport) {
      const t = state.transport;
      state.transport = null;
      void t.stop();
    }
  };
}

/** The transport of this process (see the module comment): LISTEN where PostgreSQL can be listened to, else the poller. */
function startTransport(): Transport {
  const db = resolveDatabaseUrl();
  const url = db.provider === "postgresql" ? listenUrl(db.url) : null;
  return url ? startPgListener(url) : startPoller();
}

/** Which transport `subscribeLive` starts in this process: `"listen"` (PostgreSQL LISTEN) or `"poll"`. */
export function liveTransportKind(): "listen" | "poll" {
  const db = resolveDatabaseUrl();
  return db.provider === "postgresql" && listenUrl(db.url) ? "listen" : "poll";
}

function emit(e: LiveEvent) {
  state.emitter.emit("event", e);
}

/** Run desks of `runIds` (one indexed query). */
async function desksOf(runIds: string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const runs = await prisma.run.findMany({ where: { id: { in: [...new Set(runIds)] } }, select: { id: true, desk: true } });
  return new Map(runs.map((r) => [r.id, r.desk]));
}

/** How long a missing audit event or session end is waited for: longer than a transaction may stay open (lib/server/db/transaction.ts, 20 s). */
const GAP_GRACE_MS = 30_000;
/** Missing numbers waited for at most, per table. */
const MAX_GAPS = 2_000;

/**
 * The poller (see the module comment): SQLite, and PostgreSQL behind a transaction pooler without a
 * listen URL. Audit events and ended sessions are followed by `seq` (`SeqFollower`, which also
 * delivers an event whose transaction committed after a later-numbered one's); presence by
 * `changedAt`.
 */
function startPoller(): Transport {
  const opts = { batch: FEED_BATCH, gapGraceMs: GAP_GRACE_MS, maxGaps: MAX_GAPS };
  const auditCols = { seq: true, type: true, runId: true, createdAt: true } as const;
  const audit = new SeqFollower(
    {
      fetchAfter: (after, take) => prisma.auditEvent.findMany({ where: { seq: { gt: after } }, orderBy: { seq: "asc" }, take, select: auditCols }),
      fetchIn: (seqs) => prisma.auditEvent.findMany({ where: { seq: { in: seqs } }, select: auditCols }),
      fetchLast: async () => (await prisma.auditEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0,
    },
    opts,
  );
  const endCols = { seq: true, userId: true } as const;
  const sessionEnds = new SeqFollower(
    {
      fetchAfter: (after, take) => prisma.sessionEnd.findMany({ where: { seq: { gt: after } }, orderBy: { seq: "asc" }, take, select: endCols }),
      fetchIn: (seqs) => prisma.sessionEnd.findMany({ where: { seq: { in: seqs } }, select: endCols }),
      fetchLast: async () => (await prisma.sessionEnd.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0,
    },
    opts,
  );
  let lastPresence = new Date(Date.now() - POLL_MS);
  const seenPresence = new Map<string, number>();
  let running = false;
  let again = false;
  let lastTick = 0;
  let soon: ReturnType<typeof setTimeout> | null = null;
  const tick = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    lastTick = Date.now();
    try {
      // Ended sessions first: a disabled person's streams must close before more events reach them.
      const ends = await sessionEnds.poll();
      for (const userId of new Set(ends.map((x) => x.userId))) state.emitter.emit("session", userId);
      const events = await audit.poll();
      const live = events.filter((e) => e.runId && isLiveType(e.type));
      const desks = await desksOf(live.map((e) => e.runId!));
      for (const e of live) emit({ kind: "change", type: e.type, runId: e.runId!, desk: desks.get(e.runId!) ?? "", at: e.createdAt.toISOString() });
      // Presence: rows that changed since a little before the last look (a heartbeat's clock is the
      // writer's, taken before its commit), each change emitted once.
      const since = new Date(lastPresence.getTime() - 3 * POLL_MS);
      lastPresence = new Date();
      const changed = await prisma.presence.findMany({ where: { changedAt: { gt: since } }, orderBy: { changedAt: "asc" }, take: FEED_BATCH });
      const names = await namesOf(changed.map((p) => p.userId));
      for (const p of changed) {
        const key = `${p.userId}|${p.runId}|${p.mode}|${p.changedAt.getTime()}`;
        if (seenPresence.has(key)) continue;
        seenPresence.set(key, Date.now());
        emit({ kind: "presence", runId: p.runId, desk: p.desk, userId: p.userId, name: names.get(p.userId) ?? "Someone", mode: p.mode as "viewing", seenAt: p.seenAt.toISOString() });
      }
      for (const [k, t] of seenPresence) if (Date.now() - t > 10 * POLL_MS) seenPresence.delete(k);
    } catch (e) {
      log.error({ err: e }, "plandesk: live feed poll failed");
    } finally {
      running = false;
      if (again) {
        again = false;
        nudge();
      }
    }
  };
  // A commit of this process that the feed carries: read now (at most one read every
  // NUDGE_SPACING_MS, coalesced), not at the next tick (lib/server/db/commit-signal.ts).
  const nudge = () => {
    if (soon) return;
    soon = setTimeout(() => {
      soon = null;
      void tick();
    }, Math.max(0, lastTick + NUDGE_SPACING_MS - Date.now()));
    soon.unref?.();
  };
  const stopNudges = onLiveCommit(nudge);
  const timer = setInterval(tick, livePollMs(process.env));
  timer.unref?.();
  void tick();
  return {
    stop: async () => {
      stopNudges();
      clearInterval(timer);
      if (soon) clearTimeout(soon);
    },
  };
}

/** Display names of `userIds` (one query). */
export async function namesOf(userIds: string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const users = await prisma.user.findMany({ where: { id: { in: [...new Set(userIds)] } }, select: { id: true, name: true } });
  return new Map(users.map((u) => [u.id, u.name]));
}

/** PostgreSQL: one dedicated LISTEN connection to `url` per process, reconnected after a failure. */
function startPgListener(url: string): Transport {
  let stopped = false;
  let client: import("pg").Client | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const connect = async () => {
    const { Client } = await import("pg");
    const c = new Client({ connectionString: url });
    client = c;
    c.on("error", (e) => {
      log.error(`plandesk: live feed connection lost (${e.message}); reconnecting`);
      void c.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect().catch(onFail), 2_000);
    });
    c.on("notification", (n) => {
      if (n.channel !== LIVE_CHANNEL || !n.payload) return;
      void handlePgNotification(n.payload);
    });
    await c.connect();
    if (stopped) return void c.end();
    await c.query(`LISTEN ${LIVE_CHANNEL}`);
  };
  const onFail = (e: unknown) => {
    log.error({ err: e }, "plandesk: live feed could not listen");
    if (!stopped) retry = setTimeout(() => void connect().catch(onFail), 2_000);
  };
  void connect().catch(onFail);
  return {
    stop: async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

async function handlePgNotification(payload: string) {
  try {
    const msg = JSON.parse(payload) as { k: "c"; t: string; r: string } | { k: "p"; e: LiveEvent } | { k: "s"; u: string };
    if (msg.k === "p") return emit(msg.e);
    if (msg.k === "s") return void state.emitter.emit("session", msg.u);
    const desk = (await desksOf([msg.r])).get(msg.r) ?? "";
    emit({ kind: "change", type: msg.t, runId: msg.r, desk, at: new Date().toISOString() });
  } catch (e) {
    log.error({ err: e }, "plandesk: a live notification could not be read");
  }
}

/** True while this process has a live transport running (tests). */
export function liveTransportRunning(): boolean {
  return state.transport !== null;
}
