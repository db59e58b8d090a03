import { addDays } from "date-fns";
import type { Grant } from "../people/grants";
import type { AccountSnapshot, InvoiceRecord, ShipmentRecord } from "../desk/snapshot";
import { diffPlans } from "../diff/plan-diff";
import { digest } from "../plan/digest";
import type { Plan, Step, StepInput } from "../plan/schema";
import { runDeadlines } from "../plan/policy";
import { builtinTools, getTool, toolCatalog } from "../tools/builtin-tools";
import type { ScalePlanContext } from "../tools/builtin-tool";
import { builtinCatalog } from "../tools/versioned-catalog";
import { validatePlan } from "../validation/pipeline";
import type { GateDecision, ValidationIssue } from "../validation/types";
import { editSize } from "../diff/plan-diff";
import { DEMO_AGENT_TOOLS } from "./desk-data";
import { taskIdFor } from "../desk/desks";

/**
 * A desk of real size, generated deterministically from a seed: accounts,
 * tickets with their tasks, invoices, shipments, and runs with their edit, approval and
 * execution histories and audit events. Pure (no I/O): `lib/server/demo/scale-seed.ts` writes
 * what this produces in batches. Every run is produced the way the services would produce it —
 * its plan versions validated by the one pipeline against the records it names, digests by
 * `digest`, diffs by `diffPlans`, approvals bound to digest, plan version and task revision,
 * status consistent with its approvals and executions (lib/lifecycle/run-state.ts) — so the console and
 * the executor API work on it like on any other run. Money in USD minor units; times UTC.
 */

/** How much to generate. `scaleSizes(1)` is the issue's size. */
export interface ScaleSizes {
  accounts: number;
  tickets: number;
  invoices: number;
  shipments: number;
  runs: number;
  /** Total audit events to aim for (the runs' own events plus refusal noise up to this). */
  auditEvents: number;
  /** Extra console users (operators of every desk, a few supervisors) for the admin list. */
  users: number;
}

/** Sizes at `factor` × the issue's desk (10,000 accounts, 100,000 tickets, 200,000 invoices and shipments, 20,000 runs, ~1,000,000 audit events). */
export function scaleSizes(factor = 1): ScaleSizes {
  const n = (x: number) => Math.max(1, Math.round(x * factor));
  return { accounts: n(10_000), tickets: n(100_000), invoices: n(200_000), shipments: n(200_000), runs: n(20_000), auditEvents: n(1_000_000), users: n(500) };
}

/** Desks the scale accounts belong to (70% freight, the demo operators' desk). */
export const SCALE_DESKS = ["freight", "freight", "freight", "freight", "freight", "freight", "freight", "parcel", "parcel", "ocean"] as const;

/** A small fast PRNG (mulberry32): returns floats in [0, 1). Deterministic for a seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A PRNG for record `index` of `kind` under `seed`: records can be rebuilt one at a time, in any order. */
export function rngFor(seed: number, kind: string, index: number): () => number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < kind.length; i++) h = Math.imul(h ^ kind.charCodeAt(i), 0x01000193) >>> 0;
  h = Math.imul(h ^ index, 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return mulberry32(h ^ (h >>> 16));
}

const pick = <T>(rng: () => number, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const between = (rng: () => number, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const isoUtc = (d: Date) => d.toISOString().slice(0, 10);
const pad = (n: number, w: number) => String(n).padStart(w, "0");

const NAME_A = ["Nord", "Baltic", "Rhine", "Alpine", "Fjord", "Hanse", "Delta", "Polar", "Tidal", "Oak", "Lumen", "Harbor", "Cobalt", "Granite", "Meridian", "Vega", "Atlas", "Boreal"];
const NAME_B = ["Logistics", "Freight", "Imports", "Seafood", "Parts", "Flowers", "Outdoor", "Electronics", "Furniture", "Coffee", "Pharma", "Textiles", "Motors", "Foods", "Paper"];
const FEE_CODES = ["LATE_FEE", "STORAGE", "DETENTION", "REDELIVERY", "REEFER_PLUGIN"];
/** The destinations scale-desk shipments go to (the seed loads holidays for these only). */
export const SCALE_DESTINATIONS = ["NO-OSL", "DE-HAM", "NL-RTM", "SE-GOT", "DK-CPH", "PL-GDN"] as const;
const DESTS = SCALE_DESTINATIONS;
const SHIP_STATUS = ["in_transit", "in_transit", "scheduled", "scheduled", "held", "delivered"] as const;

/** Customer account `i` (`acc_s00000`…). */
export function scaleAccount(seed: number, i: number) {
  const rng = rngFor(seed, "account", i);
  return { id: `acc_s${pad(i, 5)}`, name: `${pick(rng, NAME_A)} ${pick(rng, NAME_B)} ${i}`, desk: SCALE_DESKS[i % SCALE_DESKS.length] };
}

/** Ticket number of scale ticket `k` (numbers from 200000 on, clear of the demo desk's). */
export const scaleTicketId = (k: number) => String(200_000 + k);

/** Ticket `k` and its task (revision 1): its account is `k mod accounts`. `createdAt` UTC. */
export function scaleTicket(seed: number, k: number, sizes: ScaleSizes, now: Date) {
  const rng = rngFor(seed, "ticket", k);
  const accountIndex = k % sizes.accounts;
  const kind = pick(rng, ["damaged goods", "missed delivery", "duplicate charge", "late fee dispute", "customs hold", "address change", "billing question"]);
  // Tickets are spread over the last 62 days, in number order.
  const createdAt = new Date(now.getTime() - (1 - k / sizes.tickets) * 62 * 86_400_000 - between(rng, 1, 6) * 3_600_000);
  const id = scaleTicketId(k);
  return {
    id,
    accountId: scaleAccount(seed, accountIndex).id,
    accountIndex,
    subject: `${kind[0].toUpperCase()}${kind.slice(1)} (#${id})`,
    body: `Customer reports ${kind} on ticket ${id}. Resolve it with the customer: fix the record, make good where the contract says so, and reply.`,
    createdAt,
  };
}

/** Invoice `j` (`in_1000000`…), of account `j mod accounts`. Money in USD minor units. */
export function scaleInvoice(seed: number, j: number, sizes: ScaleSizes, now: Date) {
  const rng = rngFor(seed, "invoice", j);
  const r = rng();
  const status = r < 0.7 ? "open" : r < 0.95 ? "paid" : "void";
  const totalMinor = between(rng, 50, 9000) * 100;
  const openMinor = status === "open" ? (rng() < 0.8 ? totalMinor : Math.round(totalMinor / 2)) : 0;
  const fees = rng() < 0.4 ? [{ code: pick(rng, FEE_CODES), amount: { minor: between(rng, 20, 300) * 100, currency: "USD" as const } }] : [];
  return {
    id: `in_${1_000_000 + j}`,
    accountId: scaleAccount(seed, j % sizes.accounts).id,
    status,
    currency: "USD",
    totalMinor,
    openMinor,
    fees,
    dueDate: isoUtc(addDays(now, between(rng, -60, 30))),
  };
}

/** Shipment `j` (`sh_200000`…), of account `j mod accounts`; window ISO dates (UTC). */
export function scaleShipment(seed: number, j: number, sizes: ScaleSizes, now: Date) {
  const rng = rngFor(seed, "shipment", j);
  const from = addDays(now, between(rng, -40, 20));
  return {
    id: `sh_${200_000 + j}`,
    accountId: scaleAccount(seed, j % sizes.accounts).id,
    destination: pick(rng, DESTS),
    windowFrom: isoUtc(from),
    windowTo: isoUtc(addDays(from, between(rng, 0, 2))),
    status: pick(rng, SHIP_STATUS),
    address: `${between(rng, 1, 200)} Harbour Road, ${pick(rng, ["Oslo", "Hamburg", "Rotterdam", "Gothenburg", "Copenhagen", "Gdansk"])}`,
  };
}

/** An extra console user (no password: listed and named in histories, cannot sign in). */
export function scaleUser(seed: number, u: number) {
  const rng = rngFor(seed, "user", u);
  const desk = SCALE_DESKS[u % SCALE_DESKS.length];
  const role = u % 25 === 0 ? "supervisor" : "operator";
  const first = pick(rng, ["Ada", "Bo", "Cai", "Dina", "Eli", "Finn", "Gro", "Hugo", "Ida", "Jon", "Kari", "Lars", "Mia", "Nils", "Ola", "Pia"]);
  return { id: `usr_s${pad(u, 4)}`, email: `${first.toLowerCase()}.${pad(u, 4)}@scale.plandesk.test`, name: `${first} Scale ${u}`, role, desk };
}

/** An approval row as the writer inserts it (lib/server/approvals/approve-steps.ts shape). */
export interface ScaleApproval {
  id: string;
  runId: string;
  stepId: string;
  planVersion: number;
  tool: string;
  target: unknown;
  targetKind: string | null;
  targetId: string | null;
  amountMinor: number | null;
  amountCurrency: string | null;
  args: unknown;
  digest: string;
  boundTaskRevision: number;
  approverId: string | null;
  authority: unknown;
  acknowledged: unknown;
  state: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** An audit event as the writer inserts it (`seq` is assigned by the database in insertion order). */
export interface ScaleAudit {
  id: string;
  runId: string | null;
  type: string;
  actorKind: string;
  actorId: string | null;
  data: unknown;
  createdAt: Date;
}

/** One run and every row its history wrote. */
export interface ScaleRunRows {
  run: Record<string, unknown> & { id: string; status: string; createdAt: Date };
  planVersions: { id: string; runId: string; version: number; steps: unknown; validation: unknown; createdById: string | null; createdAt: Date }[];
  planEdits: Record<string, unknown>[];
  approvals: ScaleApproval[];
  executions: Record<string, unknown>[];
  audits: ScaleAudit[];
}

/** The context a run's generation needs: the desk's records by index and the holidays (destination → ISO dates). */
export interface ScaleContext {
  seed: number;
  sizes: ScaleSizes;
  now: Date;
  holidays: Record<string, string[]>;
  agentId: string;
}

/** Demo people who edit and approve scale runs (ids of lib/server/demo/seed.ts DEMO_USERS) and their approve ceilings (USD minor, per tool per run). */
const OPERATOR = { id: "usr_operator", limit: 50_000, authorsMoney: false };
const SENIOR = { id: "usr_senior", limit: 200_000, authorsMoney: true };
const SUPERVISOR = { id: "usr_supervisor", limit: 1_000_000, authorsMoney: true };

/** Scale run `i` belongs to ticket `i × tickets/runs` (one run per ticket at most). */
export const scaleRunTicket = (i: number, sizes: ScaleSizes) => Math.floor((i * sizes.tickets) / sizes.runs);

/**
 * When scale run `i` was submitted (UTC): runs are in submission order; all but the last 1,500
 * (7.5%) are spread over the 60 days before yesterday, the rest over the last 23 hours (the
 * live queue).
 */
export function scaleRunCreatedAt(i: number, sizes: ScaleSizes, now: Date): Date {
  const live = Math.min(sizes.runs, Math.max(1, Math.round(sizes.runs * 0.075)));
  const old = sizes.runs - live;
  const H = 3_600_000;
  if (i < old) return new Date(now.getTime() - 61 * 24 * H + (i / Math.max(1, old)) * 60 * 24 * H);
  return new Date(now.getTime() - 23 * H + ((i - old) / live) * 22.5 * H);
}

function snapshotFor(ctx: ScaleContext, ticket: ReturnType<typeof scaleTicket>, invoices: InvoiceRecord[], shipments: ShipmentRecord[]): AccountSnapshot {
  const account = scaleAccount(ctx.seed, ticket.accountIndex);
  const holidays: Record<string, string[]> = {};
  for (const s of shipments) if (ctx.holidays[s.destination]) holidays[s.destination] = ctx.holidays[s.destination];
  return {
    ticket: { id: ticket.id, accountId: ticket.accountId, subject: ticket.subject },
    accounts: { [account.id]: { id: account.id, name: account.name } },
    tickets: { [ticket.id]: { id: ticket.id, accountId: ticket.accountId, subject: ticket.subject } },
    invoices: Object.fromEntries(invoices.map((i) => [i.id, i])),
    shipments: Object.fromEntries(shipments.map((s) => [s.id, s])),
    holidays,
    inFlight: {},
  };
}

const usd = (minor: number) => ({ minor, currency: "USD" as const });

/** The account's invoices and shipments (by index: account a owns records a, a + accounts, …), as snapshot records. */
function accountRecords(ctx: ScaleContext, accountIndex: number) {
  const inv: InvoiceRecord[] = [];
  const shp: ShipmentRecord[] = [];
  for (let j = accountIndex; j < ctx.sizes.invoices && inv.length < 20; j += ctx.sizes.accounts) {
    const r = scaleInvoice(ctx.seed, j, ctx.sizes, ctx.now);
    inv.push({ id: r.id, accountId: r.accountId, status: r.status as InvoiceRecord["status"], total: usd(r.totalMinor), openBalance: usd(r.openMinor), fees: r.fees });
  }
  for (let j = accountIndex; j < ctx.sizes.shipments && shp.length < 20; j += ctx.sizes.accounts) {
    const r = scaleShipment(ctx.seed, j, ctx.sizes, ctx.now);
    shp.push({ id: r.id, accountId: r.accountId, destination: r.destination, window: { from: r.windowFrom, to: r.windowTo }, status: r.status as ShipmentRecord["status"] });
  }
  return { inv, shp };
}

/**
 * The agent's plan for a scale run: the plan shape of one built-in tool (lib/tools/<tool>/tool.ts
 * `seed.scale`), naming the ticket account's own records; a shape with nothing to act on passes
 * to the next. A retried plan (`shift` ≥ 4 days) and the last resort are an escalation.
 */
function agentSteps(rng: () => number, ctx: ScaleContext, ticketId: string, accountId: string, records: ReturnType<typeof accountRecords>, at: Date, shift: number): StepInput[] {
  const note = (text: string): StepInput => ({ id: "st_note", tool: "add_ticket_note", args: { ticketId, note: text }, provenance: { ticketId: { kind: "user_literal" } }, title: "Record what happened" });
  const reply = (body: string): StepInput => ({ id: "st_reply", tool: "send_reply", args: { ticketId, body }, provenance: {}, rationale: "The customer is told what was done." });
  const plan: ScalePlanContext = {
    rng,
    pick: (xs) => pick(rng, xs),
    between: (lo, hi) => between(rng, lo, hi),
    ticketId,
    accountId,
    invoices: records.inv,
    shipments: records.shp,
    at,
    shift,
    note,
    reply,
  };
  const lastResort = toolCatalog.escalate_ticket.seed.scale!;
  const shapes = [...builtinTools().flatMap((t) => (t.seed.scale && t.name !== "escalate_ticket" ? [t.seed.scale] : [])), lastResort];
  const first = shift >= 4 ? shapes.length - 1 : Math.floor(rng() * shapes.length);
  for (let k = 0; k < shapes.length; k++) {
    const steps = shapes[(first + k) % shapes.length](plan);
    if (steps) return steps;
  }
  return lastResort(plan)!;
}

/** What a person changes in an edit: the reply's wording (any operator), or a money amount (a person who may author money). */
function editedSteps(rng: () => number, steps: Step[], canAuthorMoney: boolean): unknown[] {
  const moneyStep = steps.find((s) => ["issue_refund", "apply_credit"].includes(s.tool));
  return steps.map((s) => {
    const copy = { id: s.id, tool: s.tool, args: structuredClone(s.args) as Record<string, unknown> };
    if (canAuthorMoney && moneyStep && s.id === moneyStep.id) {
      const a = copy.args.amount as { minor: number; currency: string };
      copy.args.amount = { ...a, minor: Math.max(100, Math.round((a.minor * between(rng, 50, 95)) / 100 / 100) * 100) };
    } else if (s.tool === "send_reply") {
      copy.args.body = `${String(copy.args.body)} Thank you for your patience.`;
    }
    return copy;
  });
}

/** Fates of an old run (submitted more than a day ago) and their weights. */
const OLD_FATES = [
  ["completed", 55],
  ["rejected", 14],
  ["expired", 14],
  ["failed", 5],
  ["unknown", 2],
] as const;
/** Fates of a live run (the last 23 hours). */
const LIVE_FATES = [
  ["pending", 50],
  ["approved", 20],
  ["completed", 18],
  ["rejected", 10],
  ["unknown", 2],
] as const;

function fateOf(rng: () => number, fates: readonly (readonly [string, number])[]): string {
  const total = fates.reduce((s, [, w]) => s + w, 0);
  let x = rng() * total;
  for (const [f, w] of fates) {
    if ((x -= w) < 0) return f;
  }
  return fates[0][0];
}

const MIN = 60_000;

/**
 * Generates scale run `i` and every row of its history, or null when its plan cannot be made
 * valid (never in practice: the shapes fall back to an escalation). The run is validated,
 * edited, approved, claimed and reported in order, at times between its submission and `now`.
 */
export function scaleRun(ctx: ScaleContext, i: number): ScaleRunRows | null {
  const rng = rngFor(ctx.seed, "run", i);
  const idr = rngFor(ctx.seed, "run-ids", i);
  const tk = scaleRunTicket(i, ctx.sizes);
  const ticket = scaleTicket(ctx.seed, tk, ctx.sizes, ctx.now);
  const account = scaleAccount(ctx.seed, ticket.accountIndex);
  const records = accountRecords(ctx, ticket.accountIndex);
  const t0 = scaleRunCreatedAt(i, ctx.sizes, ctx.now);
  const runId = `run_s${pad(i, 6)}`;
  const taskId = taskIdFor(account.desk, ticket.id);
  const live = ctx.now.getTime() - t0.getTime() < 24 * 3_600_000;
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}_s${pad(i, 6)}_${(ids++).toString(36)}${Math.floor(idr() * 36 ** 4).toString(36)}`;
  const base = { desk: snapshotFor(ctx, ticket, records.inv, records.shp), agentAllowedTools: [...DEMO_AGENT_TOOLS] as string[], taskText: ticket.body, catalog: builtinCatalog };

  // 1. Submission: the agent's plan, validated at t0 (a reschedule landing on a holiday moves a day later).
  let v1: ReturnType<typeof validatePlan> | null = null;
  // (A plan that still does not pass after three shifts falls back to an escalation.)
  for (let shift = 0; shift < 6 && !(v1?.ok && v1.plan); shift++) {
    const steps = agentSteps(rngFor(ctx.seed, "plan", i), ctx, ticket.id, account.id, records, t0, shift).map((s) => ({ ...s, author: { kind: "model" as const } }));
    v1 = validatePlan({ version: 1, steps }, { ...base, now: t0 });
  }
  if (!v1?.ok || !v1.plan) return null;
  const plan1 = v1.plan;
  const hasIrreversible = plan1.steps.some((s) => getTool(s.tool)?.effect === "irreversible");
  const { expiresAt, escalateAt } = runDeadlines(t0, hasIrreversible);
  const fate = fateOf(rng, live ? LIVE_FATES : OLD_FATES);
  const agent = { kind: "agent", id: ctx.agentId };
  const system = { kind: "system", id: null };
  const rows: ScaleRunRows = { run: null as never, planVersions: [], planEdits: [], approvals: [], executions: [], audits: [] };
  const audit = (type: string, actor: { kind: string; id: string | null }, data: unknown, at: Date) =>
    rows.audits.push({ id: nextId("evt"), runId, type, actorKind: actor.kind, actorId: actor.id, data, createdAt: at });

  // Deadlines for the decision: everything happens before expiry and before now.
  const horizon = Math.min(expiresAt.getTime() - MIN, ctx.now.getTime() - MIN);
  let clock = t0.getTime();
  const later = (minMinutes: number, maxMinutes: number) => {
    clock = Math.min(horizon, clock + between(rng, minMinutes, maxMinutes) * MIN + between(rng, 0, 59) * 1000);
    return new Date(clock);
  };

  const stored = (version: number, plan: Plan, v: ReturnType<typeof validatePlan>, by: string | null, at: Date) =>
    rows.planVersions.push({ id: nextId("pv"), runId, version, steps: plan.steps, validation: { issues: v.issues, gate: v.gate }, createdById: by, createdAt: at });
  stored(1, plan1, v1, null, t0);
  audit("submitted", agent, { taskId, taskRevision: 1, steps: plan1.steps.length }, t0);
  audit("validated", system, { planVersion: 1, ok: true, issues: v1.issues, gate: v1.gate }, t0);

  const approvalFor = (step: Step, version: number, approverId: string | null, acks: { code: string; stepId: string }[], at: Date, authority: unknown): ScaleApproval => {
    const tool = getTool(step.tool)!;
    const target = tool.target(step.args as never, base.desk) ?? null;
    const amount = tool.amount(step.args as never) ?? null;
    return {
      id: nextId("apr"),
      runId,
      stepId: step.id,
      planVersion: version,
      tool: step.tool,
      target,
      targetKind: target?.kind ?? null,
      targetId: target?.id ?? null,
      amountMinor: amount?.minor ?? null,
      amountCurrency: amount?.currency ?? null,
      args: step.args,
      digest: digest(step),
      boundTaskRevision: 1,
      approverId,
      authority,
      acknowledged: acks,
      state: "active",
      expiresAt,
      createdAt: at,
      updatedAt: at,
    };
  };
  const policyApprovals = (plan: Plan, gate: Record<string, GateDecision>, skip: Set<string>, at: Date) => {
    for (const s of plan.steps) {
      if (gate[s.id] === "auto" && !skip.has(s.id)) rows.approvals.push(approvalFor(s, plan.version, null, [], at, { kind: "policy", rule: "auto-gated tool" }));
    }
  };
  policyApprovals(plan1, v1.gate, new Set(), t0);

  // 2. Edits (a third of the runs that a person looked at): a reply reworded, or an amount lowered.
  let plan = plan1;
  let v = v1;
  let editCount = 0;
  let touched = null as { touched: string[]; seen: string[] } | null;
  let editFraction: number | null = null;
  const decided = fate !== "expired";
  const editor = rng() < 0.5 ? SENIOR : OPERATOR;
  const edits = decided && rng() < 0.35 ? (rng() < 0.2 ? 2 : 1) : 0;
  for (let e = 0; e < edits; e++) {
    const at = later(3, 40);
    const raw = editedSteps(rng, plan.steps, editor.authorsMoney);
    const candidate = { version: plan.version + 1, steps: stampLikeServer(raw, plan, editor.id, at) };
    const next = validatePlan(candidate, { ...base, now: at, runId, editor: { userId: editor.id, grants: GRANTS[editor.id] }, basePlan: plan });
    if (!next.ok || !next.plan) break;
    const diff = diffPlans(plan, next.plan, base.desk);
    if (diff.changeCount === 0) break;
    const seen = new Set<string>(touched?.seen ?? []);
    const tset = new Set<string>(touched?.touched ?? []);
    for (const id of diff.order) seen.add(id);
    for (const id of diff.touchedStepIds) tset.add(id);
    touched = { touched: [...tset], seen: [...seen] };
    editFraction = seen.size ? tset.size / seen.size : 0;
    const size = editSize(diff);
    rows.planEdits.push({
      id: nextId("edit"),
      runId,
      fromVersion: plan.version,
      toVersion: next.plan.version,
      editorId: editor.id,
      before: plan,
      after: next.plan,
      diff,
      touchedCount: size.touched,
      sizeFraction: size.fraction,
      createdAt: at,
    });
    audit("edited", { kind: "user", id: editor.id }, { fromVersion: plan.version, toVersion: next.plan.version, changeCount: diff.changeCount, summary: diff.summary, reapprovalRequired: diff.reapprovalRequired }, at);
    stored(next.plan.version, next.plan, next, editor.id, at);
    // Approvals of the previous version: unchanged auto steps carry over (a new record), the others are invalidated.
    const carried = new Set<string>();
    const invalidated: string[] = [];
    const nextDigest = new Map(next.plan.steps.map((s, idx) => [s.id, `${digest(s)}@${idx}`]));
    for (const a of rows.approvals.filter((x) => x.planVersion === plan.version && x.state === "active")) {
      const pos = plan.steps.findIndex((s) => s.id === a.stepId);
      if (nextDigest.get(a.stepId) === `${a.digest}@${pos}`) {
        a.state = "superseded";
        a.updatedAt = at;
        rows.approvals.push({ ...a, id: nextId("apr"), planVersion: next.plan.version, state: "active", authority: { ...(a.authority as object), carriedFrom: { approvalId: a.id, planVersion: plan.version } }, createdAt: at, updatedAt: at });
        carried.add(a.stepId);
      } else {
        a.state = "invalidated";
        a.updatedAt = at;
        invalidated.push(a.stepId);
      }
    }
    policyApprovals(next.plan, next.gate, carried, at);
    audit("validated", system, { planVersion: next.plan.version, ok: true, issues: next.issues, gate: next.gate }, at);
    if (invalidated.length) audit("invalidated", system, { planVersion: plan.version, stepIds: invalidated, reason: "digest changed by edit" }, at);
    plan = next.plan;
    v = next;
    editCount++;
  }

  const approver = approverFor(plan, account.desk);
  let status = "pending_review";
  let approvedVersion: number | null = null;
  let escalatedAt: Date | null = null;
  let rejectionReason: string | null = null;
  const acksFor = (stepId: string, issues: ValidationIssue[]) => issues.filter((x) => x.needsAcknowledgement && x.stepId === stepId).map((x) => ({ code: x.code, stepId }));
  const gated = plan.steps.filter((s) => v.gate[s.id] !== "auto");
  const allAuto = gated.length === 0;
  if (allAuto) {
    status = "approved";
    approvedVersion = plan.version;
  }

  const escalate = (at: Date) => {
    escalatedAt = at;
    audit("escalated", system, { at: at.toISOString(), escalateAt: escalateAt.toISOString(), expiresAt: expiresAt.toISOString(), to: "supervisors" }, at);
  };

  if (fate === "expired" || fate === "pending") {
    if (escalateAt <= ctx.now) escalate(new Date(Math.min(ctx.now.getTime(), escalateAt.getTime() + between(rng, 0, 60) * 1000)));
    if (fate === "expired" && expiresAt <= ctx.now) {
      const at = new Date(Math.min(ctx.now.getTime(), expiresAt.getTime() + between(rng, 0, 60) * 1000));
      let n = 0;
      for (const a of rows.approvals) {
        if (a.state === "active") {
          a.state = "expired";
          a.updatedAt = at;
          n++;
        }
      }
      status = "expired";
      approvedVersion = null;
      audit("expired", system, { at: at.toISOString(), approvalsExpired: n }, at);
    }
  } else if (fate === "rejected") {
    const at = later(5, 120);
    let n = 0;
    for (const a of rows.approvals) {
      if (a.state === "active") {
        a.state = "invalidated";
        a.updatedAt = at;
        n++;
      }
    }
    rejectionReason = pick(rng, ["Wrong invoice: the customer disputes another charge.", "Refund not covered by the contract.", "Customer already resolved this by phone.", "Plan the reply in the customer's language."]);
    status = "rejected";
    approvedVersion = null;
    audit("rejected", { kind: "user", id: approver.id }, { planVersion: plan.version, reason: rejectionReason, approvalsInvalidated: n }, at);
  } else {
    // approved, completed, failed, unknown: a person approves every gated step.
    const at = later(5, 180);
    for (const s of gated) {
      const amount = getTool(s.tool)?.amount(s.args as never) ?? null;
      const acks = acksFor(s.id, v.issues);
      rows.approvals.push(
        approvalFor(s, plan.version, approver.id, acks, at, { kind: "grant", userId: approver.id, role: approver.role, tool: s.tool, limit: approver.limit === null ? null : usd(approver.limit), amount }),
      );
      audit("approved", { kind: "user", id: approver.id }, { stepId: s.id, tool: s.tool, planVersion: plan.version, digest: digest(s), amount, acknowledged: acks }, at);
    }
    status = "approved";
    approvedVersion = plan.version;
    if (fate !== "approved") {
      // The executor claims the steps in order and reports each.
      const active = new Map(rows.approvals.filter((a) => a.planVersion === plan.version && a.state === "active").map((a) => [a.stepId, a]));
      const failAt = fate === "failed" ? plan.steps.length - 1 : -1;
      const unknownAt = fate === "unknown" ? plan.steps.length - 1 : -1;
      for (let k = 0; k < plan.steps.length; k++) {
        const s = plan.steps[k];
        const a = active.get(s.id)!;
        const claimedAt = later(1, 10);
        const firstClaim = k === 0;
        status = "executing";
        a.state = "claimed";
        a.updatedAt = claimedAt;
        const exe: Record<string, unknown> = {
          id: nextId("exe"),
          runId,
          stepId: s.id,
          approvalId: a.id,
          planVersion: plan.version,
          digest: a.digest,
          taskRevision: 1,
          token: `tok_${nextId("t")}_${Math.floor(idr() * 36 ** 8).toString(36)}`,
          status: "claimed",
          claimedAt,
          leaseExpiresAt: new Date(claimedAt.getTime() + 5 * MIN),
        };
        rows.executions.push(exe);
        audit("claimed", agent, { stepId: s.id, tool: s.tool, planVersion: plan.version, digest: a.digest, taskRevision: 1, approvalId: a.id, approverId: a.approverId, firstClaim, idempotencyKey: null }, claimedAt);
        const reportedAt = new Date(Math.min(ctx.now.getTime(), claimedAt.getTime() + between(rng, 2, 50) * 1000));
        const outcome = k === failAt ? "failed" : k === unknownAt ? "unknown" : "succeeded";
        exe.status = outcome;
        exe.detail = outcome === "failed" ? "Payment provider declined the transfer." : outcome === "unknown" ? "Timed out waiting for the provider." : null;
        exe.reportedAt = reportedAt;
        const consumed = outcome !== "unknown";
        if (consumed) {
          a.state = "consumed";
          a.updatedAt = reportedAt;
        }
        const last = k === plan.steps.length - 1;
        const runStatus = outcome === "failed" ? "failed" : outcome === "unknown" ? "executing" : last ? "completed" : "executing";
        status = runStatus;
        audit("outcome", agent, { stepId: s.id, status: outcome, detail: exe.detail ?? null, approvalConsumed: consumed, runStatus, needsReconciliation: outcome === "unknown" }, reportedAt);
        if (outcome !== "succeeded") break;
      }
    }
  }

  const facts = {
    stepCount: plan.steps.length,
    gatedCount: plan.steps.filter((s) => v.gate[s.id] !== "auto").length,
    warningCount: v.issues.filter((x) => x.severity === "warning").length,
  };
  const lastTouch = rows.audits.reduce((m, a) => Math.max(m, a.createdAt.getTime()), t0.getTime());
  rows.run = {
    id: runId,
    taskId,
    agentId: ctx.agentId,
    status,
    planVersion: plan.version,
    approvedVersion,
    boundTaskRevision: 1,
    expiresAt,
    escalateAt,
    escalatedAt,
    rejectionReason,
    stopReason: null,
    idempotencyKey: `scale:${i}`,
    requestHash: null,
    catalogVersion: null,
    createdAt: t0,
    updatedAt: new Date(lastTouch),
    ticketId: ticket.id,
    accountId: ticket.accountId,
    desk: account.desk,
    createdDay: isoUtc(t0),
    ...facts,
    editCount,
    editTouched: touched,
    editFraction,
    addition: false,
    supersedesId: null,
    supersededById: null,
  };
  return rows;
}

/** The demo users' grants as the validator's authorship stage reads them (lib/server/demo/seed.ts DEMO_USERS). */
const PLAIN = builtinTools().filter((t) => t.grantClass === "plain").map((t) => t.name);
const MONEY = builtinTools().filter((t) => t.grantClass === "money").map((t) => t.name);
const grantsOf = (authorLimit: number | null, approveLimit: number): Grant[] => [
  ...PLAIN.map((tool) => ({ tool, canApprove: true, canAuthor: true, approveLimit: null, authorLimit: null })),
  ...MONEY.map((tool) => ({ tool, canApprove: true, approveLimit: usd(approveLimit), canAuthor: authorLimit !== null, authorLimit: authorLimit === null ? null : usd(authorLimit) })),
];
const GRANTS: Record<string, Grant[]> = {
  usr_operator: grantsOf(null, 50_000),
  usr_senior: grantsOf(200_000, 200_000),
  usr_supervisor: grantsOf(1_000_000, 1_000_000),
};

/** Who approves a plan: an operator of the freight desk within their ceiling, else the senior, else the supervisor (who sees every desk). */
function approverFor(plan: Plan, desk: string): { id: string; role: string; limit: number | null } {
  const perTool = new Map<string, number>();
  for (const s of plan.steps) {
    const amount = getTool(s.tool)?.amount(s.args as never);
    if (amount) perTool.set(s.tool, (perTool.get(s.tool) ?? 0) + amount.minor);
  }
  const need = Math.max(0, ...perTool.values());
  const moneyTool = perTool.size > 0;
  if (desk === "freight" && need <= OPERATOR.limit) return { id: OPERATOR.id, role: "operator", limit: moneyTool ? OPERATOR.limit : null };
  if (desk === "freight" && need <= SENIOR.limit) return { id: SENIOR.id, role: "operator", limit: moneyTool ? SENIOR.limit : null };
  return { id: SUPERVISOR.id, role: "supervisor", limit: moneyTool ? SUPERVISOR.limit : null };
}

/**
 * `stampEditedSteps` (lib/server/edits/stamp-edited-steps.ts) for edits that only change
 * arguments of existing steps (the scale seed adds no steps, so no fresh random ids are drawn):
 * a changed step is authored by the editor with `operator` provenance on each changed argument.
 */
function stampLikeServer(raw: unknown[], base: Plan, editorId: string, at: Date): unknown[] {
  const byId = new Map(base.steps.map((s) => [s.id, s] as const));
  const when = at.toISOString();
  return raw.map((entry) => {
    const s = entry as { id: string; tool: string; args: Record<string, unknown> };
    const prev = byId.get(s.id)!;
    const { id: _id, tool: _tool, args: _args, provenance: _p, author: _a, ...reasons } = prev as Step & Record<string, unknown>;
    void _id; void _tool; void _args; void _p; void _a;
    if (digest({ tool: prev.tool, args: s.args }) === digest(prev)) return { ...reasons, ...s, author: prev.author, provenance: prev.provenance ?? {} };
    const provenance: Record<string, unknown> = {};
    for (const k of Object.keys(s.args)) {
      const changed = !(k in prev.args) || digest({ tool: "", args: s.args[k] }) !== digest({ tool: "", args: prev.args[k] });
      if (changed) provenance[k] = { kind: "operator", userId: editorId, at: when, previous: prev.args[k] };
      else if (prev.provenance?.[k]) provenance[k] = prev.provenance[k];
    }
    return { ...reasons, ...s, author: { kind: "user", userId: editorId }, provenance };
  });
}

/**
 * Refusal noise that fills the audit log up to its target size: what a busy desk records besides
 * its runs' histories — executors retrying a claim already made, agents' plans refused by
 * validation, people denied an action. Event `n` of `count`, spread over the same 61 days (UTC).
 */
export function scaleNoiseEvent(ctx: ScaleContext, n: number, count: number): ScaleAudit {
  const rng = rngFor(ctx.seed, "noise", n);
  const at = new Date(ctx.now.getTime() - 61 * 86_400_000 + (n / Math.max(1, count)) * 61 * 86_400_000 - between(rng, 0, 600) * 1000);
  const runIndex = Math.min(ctx.sizes.runs - 1, Math.floor((n / Math.max(1, count)) * ctx.sizes.runs));
  const runId = `run_s${pad(runIndex, 6)}`;
  const id = `evt_n${pad(n, 7)}_${Math.floor(rng() * 36 ** 4).toString(36)}`;
  const r = rng();
  if (r < 0.6) {
    return {
      id,
      runId,
      type: "claim_refused",
      actorKind: "agent",
      actorId: ctx.agentId,
      data: { stepId: "st_reply", code: "already_claimed", message: "Step st_reply was already claimed.", details: { stepId: "st_reply" }, idempotencyKey: null },
      createdAt: at,
    };
  }
  if (r < 0.85) {
    const ticket = scaleTicket(ctx.seed, scaleRunTicket(runIndex, ctx.sizes), ctx.sizes, ctx.now);
    return {
      id,
      runId: null,
      type: "submission_refused",
      actorKind: "agent",
      actorId: ctx.agentId,
      data: { taskId: taskIdFor(scaleAccount(ctx.seed, ticket.accountIndex).desk, ticket.id), issues: [{ stage: "argument_bounds", code: "unknown_id", severity: "error", message: "Invoice in_99x does not exist." }] },
      createdAt: at,
    };
  }
  if (r < 0.95) {
    return { id, runId, type: "denied", actorKind: "user", actorId: "usr_operator", data: { action: "approve", stepId: "st_refund", tool: "issue_refund", missing: { code: "over_limit" } }, createdAt: at };
  }
  return { id, runId, type: "refused", actorKind: "user", actorId: "usr_operator", data: { action: "edit", code: "stale_plan_version", message: "The plan changed while you were editing." }, createdAt: at };
}
