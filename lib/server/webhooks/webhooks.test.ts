/**
 * Webhooks outside the console: an escalation writes one outbox row in its audit
 * event's transaction; the worker POSTs it, signed, to a local receiver; a receiver that fails twice
 * is retried with backoff and then delivered; two concurrent workers send each attempt once.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { nanoid } from "nanoid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { StepInput } from "../../plan/schema";
import { appendAudit, type AuditInput } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { sweepDeadlines } from "../deadlines/sweep-deadlines";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitRun } from "../runs/submit-run";
import type { AgentCaller } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";
import { approveAllAs, prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";
import { describeEvent } from "../../audit/describe";
import { backoffMs } from "./webhook-config";
import { deliverDueWebhooks, signWebhook } from "./deliver-webhooks";
import { listWebhookFailures, retryWebhookDelivery } from "../admin/admin-webhooks";
import { loadViewer } from "../auth/viewer";

const SECRET = "test-webhook-secret-0123456789";
const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);

type Received = { headers: http.IncomingHttpHeaders; body: string };
const received: Received[] = [];
/** How many of the next requests the receiver answers 503. */
let failNext = 0;
let server: http.Server;

async function refusedCode(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

function gatedPlan(ticketId: string): StepInput[] {
  return [
    { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Customer asked for an update." } },
    { id: "s2", tool: "send_reply", args: { ticketId, body: "Thanks for your patience; we are looking into it and will write again." } },
  ];
}
async function submit(ticketId: string, expiresInSeconds: number) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps: gatedPlan(ticketId), expiresInSeconds }, `wh:${nanoid()}`, TEST_NOW)).run;
}

beforeAll(async () => {
  await prepareTestDatabase();
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end("try later");
        return;
      }
      received.push({ headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  process.env.PLANDESK_WEBHOOK_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  process.env.PLANDESK_WEBHOOK_SECRET = SECRET;
});

afterAll(async () => {
  delete process.env.PLANDESK_WEBHOOK_URL;
  delete process.env.PLANDESK_WEBHOOK_SECRET;
  await new Promise((r) => server.close(r));
});

describe("webhooks", () => {
  it("an escalation is delivered once, as Slack-compatible JSON signed with HMAC-SHA256 over timestamp.body", async () => {
    const run = await submit("75006", 3600); // escalates at +45 min
    await sweepDeadlines(at(46 * 60));
    await sweepDeadlines(at(47 * 60)); // a second sweep escalates nothing again
    const rows = await prisma.webhookDelivery.findMany({ where: { runId: run.id } });
    expect(rows.map((r) => r.event)).toEqual(["escalated"]);
    const r = await deliverDueWebhooks({ now: at(47 * 60) });
    expect(r.delivered).toContain(rows[0].id);
    const mine = () => received.filter((x) => x.headers["x-plandesk-delivery"] === rows[0].id);
    expect(mine()).toHaveLength(1);
    const [got] = mine();
    const ts = got.headers["x-plandesk-timestamp"] as string;
    expect(got.headers["x-plandesk-signature"]).toBe(signWebhook(SECRET, ts, got.body));
    expect(got.headers["x-plandesk-signature"]).not.toBe(signWebhook("another secret", ts, got.body));
    expect(got.headers["x-plandesk-delivery"]).toBe(rows[0].id);
    const json = JSON.parse(got.body) as { text: string; blocks: { type: string }[]; plandesk: { event: string; runId: string } };
    expect(json.text).toContain("Escalated to supervisors");
    expect(json.text).toContain("#75006");
    expect(json.text).toContain(`/runs/${run.id}`);
    expect(json.blocks[0].type).toBe("section");
    expect(json.plandesk).toMatchObject({ event: "escalated", runId: run.id });
    // delivered: the next pass sends nothing
    expect((await deliverDueWebhooks({ now: at(48 * 60) })).delivered).not.toContain(rows[0].id);
    expect(mine()).toHaveLength(1);
    expect((await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: rows[0].id } })).status).toBe("delivered");
  });

  it("a receiver that fails twice is retried with exponential backoff, then delivered; an expiry is sent too", async () => {
    received.length = 0;
    const run = await submit("75007", 600);
    await sweepDeadlines(at(601)); // expires (its escalation time passed too, but expiry comes first for a run already past expiresAt)
    const rows = await prisma.webhookDelivery.findMany({ where: { runId: run.id, event: "expired" } });
    expect(rows).toHaveLength(1);
    failNext = 2;
    const t0 = at(602);
    const first = await deliverDueWebhooks({ now: t0 });
    expect(first.retrying).toEqual([rows[0].id]);
    let row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: rows[0].id } });
    expect(row).toMatchObject({ attempts: 1, status: "pending", lastStatus: 503 });
    expect(row.lastError).toContain("503");
    expect(row.nextAttemptAt.getTime() - t0.getTime()).toBe(backoffMs(1));
    // not due yet: nothing is sent
    expect((await deliverDueWebhooks({ now: new Date(t0.getTime() + backoffMs(1) - 1) })).retrying).toEqual([]);
    const t1 = new Date(t0.getTime() + backoffMs(1));
    expect((await deliverDueWebhooks({ now: t1 })).retrying).toEqual([rows[0].id]);
    row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: rows[0].id } });
    expect(row.nextAttemptAt.getTime() - t1.getTime()).toBe(backoffMs(2));
    expect(backoffMs(2)).toBe(2 * backoffMs(1));
    const t2 = new Date(t1.getTime() + backoffMs(2));
    expect((await deliverDueWebhooks({ now: t2 })).delivered).toEqual([rows[0].id]);
    row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: rows[0].id } });
    expect(row).toMatchObject({ attempts: 3, status: "delivered", lastStatus: 200, lastError: null });
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0].body).text).toContain("Expired");
  });

  it("an approved run that expired unclaimed is sent as approved and expired before the executor claimed it, not as 'without a decision'", async () => {
    const run = await submit("75009", 600);
    await approveAllAs(run.id, "usr_senior");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("approved");
    await sweepDeadlines(at(601));
    const [row] = await prisma.webhookDelivery.findMany({ where: { runId: run.id, event: "expired" } });
    const text = (row.payload as { text: string }).text;
    expect(text).toContain("was approved but expired at");
    expect(text).toContain("before the executor claimed it");
    expect(text).not.toContain("without a decision");
    // The audit trail says the same.
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { runId: run.id, type: "expired" } });
    expect(event.data).toMatchObject({ while: "approved" });
    expect(describeEvent("expired", event.data as Record<string, unknown>, { users: {}, stepLabel: () => undefined })).toBe(
      "The run was approved, but it expired before the executor claimed it; nothing was written.",
    );
    // A run nobody decided still reads as such.
    const waiting = await submit("75012", 600);
    await sweepDeadlines(at(601));
    const [other] = await prisma.webhookDelivery.findMany({ where: { runId: waiting.id, event: "expired" } });
    expect((other.payload as { text: string }).text).toContain("without a decision");
  });

  it("gives up after the last attempt and keeps the failure for admins", async () => {
    const run = await submit("75009", 600);
    await sweepDeadlines(at(700));
    const [row] = await prisma.webhookDelivery.findMany({ where: { runId: run.id } });
    failNext = 100;
    let now = at(701);
    for (let i = 0; i < 3; i++) {
      await deliverDueWebhooks({ now, maxAttempts: 3 });
      now = new Date(now.getTime() + backoffMs(10));
    }
    failNext = 0;
    const after = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: row.id } });
    expect(after).toMatchObject({ status: "failed", attempts: 3, lastStatus: 503 });
    // admins see it, page by page, and retry it now: it is delivered on the next pass
    const admin = (await loadViewer("usr_admin"))!;
    const operator = (await loadViewer("usr_operator"))!;
    expect((await refusedCode(listWebhookFailures(operator)))).toBe("forbidden");
    const first = await listWebhookFailures(admin, { limit: 1 });
    const all = [...first.deliveries, ...(first.nextCursor ? (await listWebhookFailures(admin, { cursor: first.nextCursor, limit: 200 })).deliveries : [])];
    expect(all.find((d) => d.id === row.id)).toMatchObject({ status: "failed", attempts: 3, lastError: expect.stringContaining("503") });
    await retryWebhookDelivery(admin, row.id, now);
    expect((await deliverDueWebhooks({ now })).delivered).toContain(row.id);
    expect((await listWebhookFailures(admin, { limit: 200 })).deliveries.map((d) => d.id)).not.toContain(row.id);
    expect(await refusedCode(retryWebhookDelivery(admin, row.id, now))).toBe("already_delivered");
    expect(await prisma.auditEvent.count({ where: { type: "admin_change", actorId: admin.id } })).toBeGreaterThan(0);
  });

  it("an event whose transaction rolls back leaves no delivery; two concurrent workers send each delivery once", async () => {
    const run = await submit("75010", 3600);
    await expect(
      inTransaction(async (tx) => {
        await appendAudit(tx, { runId: run.id, type: "escalated", actor: { kind: "system" }, data: { at: "x", escalateAt: "x", expiresAt: "x", to: "supervisors" } });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await prisma.webhookDelivery.count({ where: { runId: run.id } })).toBe(0);
    for (let i = 0; i < 6; i++) {
      await inTransaction(async (tx) => {
        await appendAudit(tx, { runId: run.id, type: "escalated", actor: { kind: "system" }, data: { at: TEST_NOW.toISOString(), escalateAt: TEST_NOW.toISOString(), expiresAt: TEST_NOW.toISOString(), to: "supervisors" } });
        return ok(null);
      });
    }
    received.length = 0;
    const now = at(5000);
    const [a, b] = await Promise.all([deliverDueWebhooks({ now }), deliverDueWebhooks({ now })]);
    expect(a.delivered.length + b.delivered.length).toBe(6);
    expect(new Set([...a.delivered, ...b.delivered]).size).toBe(6);
    expect(received).toHaveLength(6);
  });

  it("a hand-off (approval_requested, written by Request approval) is sent naming the person it went to", async () => {
    const run = await submit("75008", 3600);
    await inTransaction(async (tx) => {
      // the type the "Request approval" hand-off writes; typed loosely until it is an AuditType
      const handOff = { runId: run.id, type: "approval_requested", actor: { kind: "user", id: "usr_operator" }, data: { runId: run.id, toUserId: "usr_senior", note: "Refund above my ceiling", byUserId: "usr_operator" } };
      await appendAudit(tx, handOff as unknown as AuditInput);
      return ok(null);
    });
    const [row] = await prisma.webhookDelivery.findMany({ where: { runId: run.id, event: "approval_requested" } });
    expect((row.payload as { text: string }).text).toContain("handed to Sam Senior: “Refund above my ceiling”");
  });
});

describe("the Slack message", () => {
  it("shows people's words as written: a note cannot mention the channel or add a link", async () => {
    const { buildPayload } = await import("./webhook-outbox");
    const p = buildPayload({ type: "approval_requested", runId: "run_x", data: { toName: "Sam <Senior>", note: "<!channel> see <https://evil.example|here> & now" } }, { ticketId: "74991", desk: "freight" });
    const section = (p.blocks[0] as { text: { text: string } }).text.text;
    expect(section).toContain("&lt;!channel&gt; see &lt;https://evil.example|here&gt; &amp; now");
    expect(section).toContain("Sam &lt;Senior&gt;");
    expect(section).not.toContain("<!channel>");
    expect(section).toMatch(/<http[^|]+\/runs\/run_x\|Open the run>$/); // our own link stays a link
  });
});
