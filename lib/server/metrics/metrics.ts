/**
 * The service's metrics in Prometheus' text format (prom-client), served by `GET /api/metrics`
 * to a scraper holding `PLANDESK_METRICS_TOKEN`. One registry per process (kept on `globalThis`,
 * so a module loaded twice by the framework still counts into one). What is measured:
 *
 * - `plandesk_request_duration_seconds{endpoint,status}`: every API request through the route
 *   wrapper (lib/server/route/route.ts), labelled by its declared endpoint (`POST /api/v1/runs/{runId}/steps/{stepId}/claim`,
 *   a template, never an id) and answer status: the decisions' latency per endpoint.
 * - `plandesk_requests_in_flight{endpoint}`: requests being answered now, including open event
 *   streams (agents waiting on a run's decision, people's live feeds).
 * - `plandesk_refusals_total{endpoint,code}`: typed refusals by code (claims refused as
 *   `already_claimed`, `digest_mismatch`…, approvals as `signature_required`…).
 * - Read when scraped (bounded, indexed reads): `plandesk_runs_waiting{desk,status}` and
 *   `plandesk_oldest_waiting_run_age_seconds{status}` for runs waiting on a person
 *   (`pending_review`, `needs_decision`); `plandesk_webhook_backlog` (deliveries still to send).
 * - `plandesk_background_passes_total{loop,result}` and
 *   `plandesk_background_last_pass_timestamp_seconds{loop}`: passes of the background loops
 *   (`deadline_sweep`, `webhook_delivery`, demo mode's `staging_sweep`) that ended `ok` or `failed`, and when the last one
 *   ended (Unix seconds, UTC) — a loop that stopped shows as a timestamp that no longer moves.
 * - `plandesk_transaction_retries_total{reason}`: transactions run again because they lost to a
 *   concurrent one (`conflict`: a serialization failure, deadlock or lock timeout; `unique`: a key
 *   a concurrent write took first; `lost_race`: a conditional write that found its row changed),
 *   and `exhausted` when the attempts ran out and the request was answered `busy` — contention
 *   an operator sees before people do.
 * - `plandesk_db_pool_connections{state}` (PostgreSQL: `total`, `idle`, `waiting` clients of
 *   every pool this process opened) and prom-client's default process metrics (CPU, memory, event
 *   loop lag, heap), prefixed `plandesk_`.
 *
 * Labels carry endpoint templates, refusal codes, statuses and desk ids only: no customer text,
 * no ids of runs or people, no secrets.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { PrismaClient } from "../../generated/prisma/client";
import { bearerToken } from "../../net/bearer-token";

/** The statuses of a run that wait on a person. */
export const WAITING_STATUSES = ["pending_review", "needs_decision"] as const;

/** What a process's pools report (pg's `Pool`: clients open, idle, and checkouts waiting for one). */
export interface PoolGauges {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  ended?: boolean;
}

interface Instruments {
  registry: Registry;
  duration: Histogram<"endpoint" | "status">;
  inFlight: Gauge<"endpoint">;
  refusals: Counter<"endpoint" | "code">;
  waiting: Gauge<"desk" | "status">;
  oldestWaiting: Gauge<"status">;
  backgroundPasses: Counter<"loop" | "result">;
  transactionRetries: Counter<"reason">;
  lastBackgroundPass: Gauge<"loop">;
  webhookBacklog: Gauge;
  pool: Gauge<"state">;
  pools: Set<PoolGauges>;
}

const g = globalThis as unknown as { plandeskMetrics?: Instruments };

/** The process's instruments, made once. */
function instruments(): Instruments {
  if (g.plandeskMetrics) return g.plandeskMetrics;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "plandesk_" });
  const pools = new Set<PoolGauges>();
  const made: Instruments = {
    registry,
    pools,
    // Buckets from 5 ms to 10 s: a decision is tens of milliseconds; a claim under load may take seconds.
    duration: new Histogram({
      name: "plandesk_request_duration_seconds",
      help: "API requests by declared endpoint and answer status, in seconds",
      labelNames: ["endpoint", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    inFlight: new Gauge({ name: "plandesk_requests_in_flight", help: "API requests being answered now (open event streams included)", labelNames: ["endpoint"], registers: [registry] }),
    refusals: new Counter({ name: "plandesk_refusals_total", help: "Typed refusals by endpoint and code", labelNames: ["endpoint", "code"], registers: [registry] }),
    waiting: new Gauge({ name: "plandesk_runs_waiting", help: "Runs waiting on a person, by desk and status (read when scraped)", labelNames: ["desk", "status"], registers: [registry] }),
    oldestWaiting: new Gauge({
      name: "plandesk_oldest_waiting_run_age_seconds",
      help: "Age of the oldest run waiting on a person, by status (0: none waiting; read when scraped)",
      labelNames: ["status"],
      registers: [registry],
    }),
    backgroundPasses: new Counter({
      name: "plandesk_background_passes_total",
      help: "Passes of the background loops (deadline_sweep, webhook_delivery, staging_sweep) by result (ok, failed)",
      labelNames: ["loop", "result"],
      registers: [registry],
    }),
    transactionRetries: new Counter({
      name: "plandesk_transaction_retries_total",
      help: "Transactions run again after losing to a concurrent one, by reason (conflict, unique, lost_race), and exhausted (answered busy)",
      labelNames: ["reason"],
      registers: [registry],
    }),
    lastBackgroundPass: new Gauge({
      name: "plandesk_background_last_pass_timestamp_seconds",
      help: "When the last pass of each background loop ended, in Unix seconds (UTC)",
      labelNames: ["loop"],
      registers: [registry],
    }),
    webhookBacklog: new Gauge({ name: "plandesk_webhook_backlog", help: "Webhook deliveries not yet sent (read when scraped)", registers: [registry] }),
    pool: new Gauge({
      name: "plandesk_db_pool_connections",
      help: "PostgreSQL pool clients of this process: total, idle, and checkouts waiting for one",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        let total = 0;
        let idle = 0;
        let waitingCount = 0;
        for (const p of pools) {
          if (p.ended) {
            pools.delete(p);
            continue;
          }
          total += p.totalCount;
          idle += p.idleCount;
          waitingCount += p.waitingCount;
        }
        this.set({ state: "total" }, total);
        this.set({ state: "idle" }, idle);
        this.set({ state: "waiting" }, waitingCount);
      },
    }),
  };
  g.plandeskMetrics = made;
  return made;
}

/** Counts a PostgreSQL pool of this process in `plandesk_db_pool_connections` (until it has ended). */
export function registerPool(pool: PoolGauges): void {
  instruments().pools.add(pool);
}

/**
 * Measures one request of `endpoint` (its declared `METHOD /path/{template}`): in flight while
 * `answer` runs, then its duration under the answer's status (500 when it threw).
 */
export async function measureRequest(endpoint: string, answer: () => Promise<Response>): Promise<Response> {
  const m = instruments();
  const end = m.duration.startTimer({ endpoint });
  m.inFlight.inc({ endpoint });
  let status = 500;
  try {
    const res = await answer();
    status = res.status;
    return res;
  } finally {
    m.inFlight.dec({ endpoint });
    end({ status: String(status) });
  }
}

/** Counts one typed refusal (`code`, e.g. `already_claimed`) of `endpoint`. */
export function countRefusal(endpoint: string, code: string): void {
  instruments().refusals.inc({ endpoint, code });
}

/** Why a transaction ran again (see `plandesk_transaction_retries_total`), or `exhausted`. */
export type TransactionRetryReason = "conflict" | "unique" | "lost_race" | "exhausted";

/** Counts one retry of a transaction (or its exhaustion) by reason. */
export function countTransactionRetry(reason: TransactionRetryReason): void {
  instruments().transactionRetries.inc({ reason });
}

/** How many retries of `reason` this process counted since it started (tests and benchmarks read it). */
export async function transactionRetries(reason: TransactionRetryReason): Promise<number> {
  const m = await instruments().transactionRetries.get();
  return m.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

/** The server's background loops, as `plandesk_background_passes_total` labels them. */
export type BackgroundLoop = "deadline_sweep" | "webhook_delivery" | "staging_sweep";

/** Counts one ended pass of a background loop (`failed` when it threw) and stamps when it ended. */
export function countBackgroundPass(loop: BackgroundLoop, result: "ok" | "failed"): void {
  const m = instruments();
  m.backgroundPasses.inc({ loop, result });
  m.lastBackgroundPass.set({ loop }, Date.now() / 1000);
}

/**
 * True when `authorization` (the request's header) is `Bearer <token>` (parsed as every key is,
 * `bearerToken`) for the configured `token`; compared in constant time over SHA-256 digests, so
 * neither length nor prefix leaks.
 */
export function metricsTokenMatches(authorization: string | null, token: string): boolean {
  const sent = bearerToken(authorization);
  if (!sent) return false;
  const a = createHash("sha256").update(sent).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

/**
 * The metrics as Prometheus text (content type `METRICS_CONTENT_TYPE`), after reading what is read
 * when scraped from `db`: runs waiting on a person per desk and status (one grouped count over
 * the (desk, status, createdAt) index; a desk with none reads 0 once it has had some), the oldest
 * waiting run per status (one indexed MIN each), and the webhook deliveries still pending (a count
 * over the (status, nextAttemptAt) index). `now`: the clock ages are measured against (UTC).
 */
export async function renderMetrics(db: PrismaClient, now = new Date()): Promise<string> {
  const m = instruments();
  const [groups, oldest, backlog] = await Promise.all([
    db.run.groupBy({ by: ["desk", "status"], where: { status: { in: [...WAITING_STATUSES] } }, _count: { _all: true } }),
    Promise.all(WAITING_STATUSES.map((status) => db.run.aggregate({ where: { status }, _min: { createdAt: true } }))),
    db.webhookDelivery.count({ where: { status: "pending" } }),
  ]);
  // A desk whose last waiting run was decided reads 0, not its last count.
  for (const metric of (await m.waiting.get()).values) m.waiting.set(metric.labels as { desk: string; status: string }, 0);
  for (const row of groups) m.waiting.set({ desk: row.desk, status: row.status }, row._count._all);
  WAITING_STATUSES.forEach((status, k) => {
    const first = oldest[k]._min.createdAt;
    m.oldestWaiting.set({ status }, first ? Math.max(0, (now.getTime() - first.getTime()) / 1000) : 0);
  });
  m.webhookBacklog.set(backlog);
  return m.registry.metrics();
}

/** The content type of `renderMetrics`' text (Prometheus text exposition format 0.0.4). */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
