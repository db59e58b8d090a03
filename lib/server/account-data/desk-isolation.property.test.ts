/**
 * Property (fast-check, SQLite and PostgreSQL): across a desk line nothing is written, previewed or
 * mentioned. For random plans whose steps target records of random desks (the demo's freight and
 * retail desks), validated, previewed and diffed for a run of a random desk exactly as the
 * services do (the account snapshot loaded for the run's desk → validator → effects preview →
 * semantic diff):
 *
 * 1. every step whose target belongs to another desk has an error (`unknown_id`, "not found on
 *    this desk") — errors pass no acknowledgement, so nothing of it is approved, claimed or written;
 * 2. another desk's record is indistinguishable from a record that does not exist: the snapshot,
 *    every issue message and detail, the preview and the diff are the same when each foreign id is
 *    replaced by an id nobody has (hints aside, which name only the run's own desk's records) — so
 *    no name, balance, window, owner or count derived from the foreign record appears anywhere;
 * 3. every "did you mean" hint and look-alike candidate is a record of the run's desk.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { diffPlans } from "../../diff/plan-diff";
import { previewEffects } from "../../effects/preview";
import { validatePlan } from "../../validation/pipeline";
import { prisma } from "../db/db";
import { prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";
import { loadAccountSnapshot } from "./load-account-snapshot";
import { searchRecords } from "./search-records";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";

type Kind = "invoice" | "shipment" | "ticket" | "account";
type Rec = { kind: Kind; id: string; desk: string };
const DESKS = ["freight", "retail"] as const;

let records: Rec[] = [];
const runTicket: Record<string, { id: string; body: string }> = {};
const ownerDesk = new Map<string, string>(); // `${kind}:${id}` → desk

beforeAll(async () => {
  await prepareTestDatabase();
  const accounts = await prisma.customerAccount.findMany({ select: { id: true, desk: true } });
  const deskOf = new Map(accounts.map((a) => [a.id, a.desk]));
  records = [
    ...accounts.map((a) => ({ kind: "account" as const, id: a.id, desk: a.desk })),
    ...(await prisma.invoice.findMany({ select: { id: true, accountId: true } })).map((r) => ({ kind: "invoice" as const, id: r.id, desk: deskOf.get(r.accountId)! })),
    ...(await prisma.shipment.findMany({ select: { id: true, accountId: true } })).map((r) => ({ kind: "shipment" as const, id: r.id, desk: deskOf.get(r.accountId)! })),
    ...(await prisma.ticket.findMany({ select: { id: true, accountId: true } })).map((r) => ({ kind: "ticket" as const, id: r.id, desk: deskOf.get(r.accountId)! })),
  ];
  for (const r of records) ownerDesk.set(`${r.kind}:${r.id}`, r.desk);
  for (const desk of DESKS) {
    const task = await prisma.task.findFirstOrThrow({ where: { ticket: { account: { desk } } }, orderBy: { id: "asc" }, include: { ticket: true } });
    runTicket[desk] = { id: task.ticketId, body: task.body };
  }
  expect(new Set(records.map((r) => r.desk))).toEqual(new Set(DESKS));
});

const TOOL_TARGET: Record<string, Kind> = {
  issue_refund: "invoice",
  waive_fee: "invoice",
  apply_credit: "account",
  reschedule_delivery: "shipment",
  send_reply: "ticket",
  add_ticket_note: "ticket",
  escalate_ticket: "ticket",
};

/** Arguments of `tool` aimed at record `id` (amounts in USD minor units; dates around the test clock). */
function argsFor(tool: string, id: string, amount: number, day: number): Record<string, unknown> {
  const date = new Date(TEST_NOW.getTime() + day * 86_400_000).toISOString().slice(0, 10);
  const money = { minor: amount, currency: "USD" };
  switch (tool) {
    case "issue_refund":
      return { invoiceId: id, amount: money, reason: "Goodwill" };
    case "waive_fee":
      return { invoiceId: id, feeCode: "LATE_FEE", amount: money };
    case "apply_credit":
      return { accountId: id, amount: money, memo: "Service credit" };
    case "reschedule_delivery":
      return { shipmentId: id, window: { from: date, to: date }, reason: "Customer asked" };
    case "send_reply":
      return { ticketId: id, body: "We are looking into it and will write again today." };
    case "escalate_ticket":
      return { ticketId: id, team: "operations", note: "Please check." };
    default:
      return { ticketId: id, note: "Checked the case." };
  }
}

const stepArb = fc.record({
  tool: fc.constantFrom(...Object.keys(TOOL_TARGET)),
  pick: fc.nat(),
  amount: fc.integer({ min: 1, max: 1_000_000 }),
  day: fc.integer({ min: 1, max: 20 }),
  source: fc.boolean(), // also name the target as the provenance source of an argument
});
const sampleArb = fc.record({ desk: fc.constantFrom(...DESKS), steps: fc.array(stepArb, { minLength: 1, maxLength: 4 }) });

/** An id of the same kind that no record has (same shape, so messages read alike). */
const ghostOf = (id: string) => `${id}zq`;

/** Everything the services would show about `steps` for a run of `desk`, as one JSON text (hints and look-alike candidates removed). */
async function observe(desk: string, steps: Record<string, unknown>[]) {
  const ticket = runTicket[desk];
  const snapshot = await loadAccountSnapshot({ ticketId: ticket.id, desk, steps, now: TEST_NOW });
  const plan = { version: 2, steps };
  const result = validatePlan(plan, { desk: snapshot, now: TEST_NOW, taskText: ticket.body, agentAllowedTools: [...DEMO_AGENT_TOOLS] });
  const effects = result.plan ? previewEffects(result.plan.steps, snapshot) : [];
  const diff = result.plan ? diffPlans({ version: 1, steps: [] }, result.plan, snapshot) : null;
  const hints = [
    ...result.issues.flatMap((i) => (typeof i.details?.suggestion === "string" ? [{ kind: i.details.kind as Kind, id: i.details.suggestion }] : [])),
    ...Object.entries(snapshot.candidates ?? {}).flatMap(([kind, ids]) => (ids ?? []).map((id) => ({ kind: kind as Kind, id }))),
  ];
  const { candidates: _c, ...shown } = snapshot;
  const issues = result.issues.map(({ details, message, ...i }) => ({
    ...i,
    message: message.replace(/ — did you mean [^?]*\?( \(it only looks like [^)]*\))?/, ""),
    details: details && Object.fromEntries(Object.entries(details).filter(([k]) => k !== "suggestion" && k !== "lookalike")),
  }));
  return { result, hints, text: JSON.stringify({ shown, issues, effects, diff }) };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("desk isolation, over random steps and desks", () => {
  it("a foreign target is always an error, indistinguishable from a record that does not exist, and hints name only the run's desk", async () => {
    await fc.assert(
      fc.asyncProperty(sampleArb, async ({ desk, steps: picks }) => {
        const steps = picks.map((p, n) => {
          const kind = TOOL_TARGET[p.tool];
          const pool = records.filter((r) => r.kind === kind);
          const target = pool[p.pick % pool.length];
          const field = Object.keys(argsFor(p.tool, target.id, p.amount, p.day))[0];
          return {
            step: {
              id: `s${n}`,
              tool: p.tool,
              args: argsFor(p.tool, target.id, p.amount, p.day),
              ...(p.source ? { provenance: { [field]: { kind: "source", recordType: kind, recordId: target.id } } } : {}),
            },
            target,
          };
        });
        const foreign = [...new Set(steps.filter((s) => s.target.desk !== desk).map((s) => s.target.id))];
        const seen = await observe(desk, steps.map((s) => s.step));

        // 1. Every foreign target is an error on its step.
        for (const s of steps.filter((x) => x.target.desk !== desk)) {
          const err = seen.result.issues.find((i) => i.stepId === s.step.id && i.severity === "error" && i.code === "unknown_id");
          expect(err, `step ${s.step.id} targets ${s.target.kind} ${s.target.id} of desk ${s.target.desk}`).toBeDefined();
          expect(err!.message).toContain("not found on this desk");
        }
        expect(seen.result.ok).toBe(foreign.length === 0 ? seen.result.ok : false);

        // 2. Foreign ids behave exactly as ids nobody has.
        if (foreign.length > 0) {
          const ghostSteps = JSON.parse(foreign.reduce((t, id) => t.replace(new RegExp(`(?<![A-Za-z0-9_])${escape(id)}(?![A-Za-z0-9_])`, "g"), ghostOf(id)), JSON.stringify(steps.map((s) => s.step))));
          const ghost = await observe(desk, ghostSteps);
          const renamed = foreign.reduce((t, id) => t.replace(new RegExp(`(?<![A-Za-z0-9_])${escape(id)}(?![A-Za-z0-9_])`, "g"), ghostOf(id)), seen.text);
          expect(renamed).toBe(ghost.text);
        }

        // 3. Hints and candidates are the run's desk's records.
        for (const h of seen.hints) expect(ownerDesk.get(`${h.kind}:${h.id}`), `hint ${h.kind} ${h.id}`).toBe(desk);
      }),
      { numRuns: 40, seed: 2026 },
    );
  });

  it("record search by any prefix answers only records of the operator's desk", async () => {
    const operators = { freight: { role: "operator" as const, desk: "freight" }, retail: { role: "operator" as const, desk: "retail" } };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DESKS), fc.constantFrom<Kind>("invoice", "shipment", "ticket", "account"), fc.nat(), fc.integer({ min: 1, max: 4 }), async (desk, kind, pick, len) => {
        const pool = records.filter((r) => r.kind === kind);
        const prefix = pool[pick % pool.length].id.slice(0, len);
        const found = await searchRecords(operators[desk], kind, prefix);
        for (const r of found) expect(ownerDesk.get(`${kind}:${r.id}`)).toBe(desk);
        const expected = new Set(records.filter((r) => r.kind === kind && r.desk === desk && r.id.startsWith(prefix)).map((r) => r.id));
        expect(found.length).toBe(Math.min(20, expected.size));
        for (const r of found) expect(expected.has(r.id)).toBe(true);
      }),
      { numRuns: 40, seed: 2026 },
    );
  });
});
