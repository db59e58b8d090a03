/**
 * README "Connect your systems", walked exactly as written, from an EMPTY database outside demo mode
 * (PLANDESK_DEMO=0, no demo seed): the documented commands (`npm run db:migrate`, `npm run db:seed`,
 * `npm run admin:create`, `npm run import`) and HTTP calls only, through to an approved and executed
 * refund — on SQLite with one instance and on PostgreSQL with two instances behind one origin (each
 * call goes to the next instance in turn, as a load balancer would).
 *
 * Along the way it proves the door's promises a team relies on: records carry their source version
 * (a replay changes nothing), the task is opened by the ticketing integration, an operator with
 * the grant approves, the claim names the record versions the approval saw, the fence refuses a
 * moved target (`target_changed`) and passes the unmoved one, and the succeeded refund keeps
 * holding its money until a synced version of the invoice reflects it (no window in which the same
 * money can be approved twice).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { dropPgTestDatabase, freshTestDatabaseUrl, recreatePgTestDatabase } from "../testing/test-databases";
import { freePort, startAppInstance, stopAppInstance, type AppInstance } from "../testing/app-instances";

const ADMIN = { email: "it-admin@example.com", password: "correct horse battery staple" };
const OPERATOR = { email: "dana@example.com", password: "another long passphrase" };
const DAY = 24 * 3600 * 1000;
const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

type Answer = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string } } };

/** Runs an npm script of the checkout the way README shows it, with `env` and optional stdin; returns its output. */
function npmRun(script: string, args: string[], env: Record<string, string>, input?: string): string {
  const r = spawnSync("npm", ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])], {
    cwd: process.cwd(),
    env: { ...process.env, ...env, NEXT_TELEMETRY_DISABLED: "1" },
    input,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm run ${script} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}\n${r.stderr}`;
}

for (const dialect of ["sqlite", "postgresql"] as const) {
  test.describe(`connect your systems on ${dialect}`, () => {
    test.describe.configure({ mode: "serial", timeout: 240_000 });
    let databaseUrl = "";
    let dir = "";
    let instances: AppInstance[] = [];
    let turn = 0;
    const env = () => ({ DATABASE_URL: databaseUrl, PLANDESK_DEMO: "0" });
    /** The next instance in turn (one on SQLite, two on PostgreSQL), as a load balancer would pick. */
    const next = () => instances[turn++ % instances.length];

    async function call(method: string, p: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
      const at = next();
      const res = await fetch(`${at.origin}${p}`, {
        method,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), origin: at.publicOrigin, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : {} };
    }
    async function signIn(email: string, password: string): Promise<string> {
      const at = next();
      const res = await fetch(`${at.origin}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { origin: at.publicOrigin, "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
    }

    test.beforeAll(async () => {
      // migrating an empty database and starting the instances (two on PostgreSQL) outlasts the
      // default hook timeout on a busy two-core machine
      test.setTimeout(240_000);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-connect-"));
      if (dialect === "postgresql") {
        databaseUrl = freshTestDatabaseUrl({ ...process.env, PLANDESK_TEST_DB: "postgres" });
        await recreatePgTestDatabase(databaseUrl);
      } else {
        databaseUrl = `file:${path.join(dir, "plandesk.db")}`;
      }
      // README "Connect your systems", step 1: migrate, seed outside demo mode (creates nothing), the first admin.
      npmRun("db:migrate", [], env());
      const seeded = npmRun("db:seed", [], env());
      expect(seeded).not.toMatch(/demo desk seeded/i);
      npmRun("admin:create", ["--email", ADMIN.email, "--name", "IT Admin"], env(), `${ADMIN.password}\n`);
      const origin = `http://127.0.0.1:${await freePort()}`;
      const count = dialect === "postgresql" ? 2 : 1;
      for (let i = 0; i < count; i++) {
        const port = i === 0 ? Number(new URL(origin).port) : await freePort();
        instances.push(await startAppInstance({ databaseUrl, port, publicOrigin: origin, env: { PLANDESK_DEMO: "0" } }));
      }
    });

    test.afterAll(async () => {
      await Promise.all(instances.map((i) => stopAppInstance(i)));
      instances = [];
      if (dialect === "postgresql") await dropPgTestDatabase(databaseUrl);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test("from an empty desk to an approved, fenced and executed refund, with only documented commands and calls", async () => {
      // The empty desk: no accounts, no tasks, and no demo sign-in works.
      const demo = await fetch(`${instances[0].origin}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { origin: instances[0].publicOrigin, "content-type": "application/json" },
        body: JSON.stringify({ email: "operator@plandesk.test", password: "plandesk-demo" }),
      });
      expect(demo.status).not.toBe(200);

      // Step 2: the admin creates the integration key, the agent and its key, and an operator with grants.
      const admin = { cookie: await signIn(ADMIN.email, ADMIN.password) };
      const integration = await call("POST", "/api/admin/integration-keys", admin, { name: "Zendesk + billing sync", desk: "freight" });
      expect(integration.status, JSON.stringify(integration.body)).toBe(201);
      const integrationKey = integration.body.key as string;
      const agentCreated = await call("POST", "/api/admin/agents", admin, { name: "Refund agent", allowedTools: ["add_ticket_note", "issue_refund"] });
      expect(agentCreated.status, JSON.stringify(agentCreated.body)).toBe(201);
      const agentId = (agentCreated.body.agent as { id: string }).id;
      const agentKeyAnswer = await call("POST", `/api/admin/agents/${agentId}/keys`, admin, {});
      expect(agentKeyAnswer.status, JSON.stringify(agentKeyAnswer.body)).toBe(201);
      const agent = { authorization: `Bearer ${agentKeyAnswer.body.key as string}` };
      const operatorCreated = await call("POST", "/api/admin/users", admin, { email: OPERATOR.email, name: "Dana Operator", role: "operator", password: OPERATOR.password });
      expect(operatorCreated.status, JSON.stringify(operatorCreated.body)).toBe(201);
      const operatorId = (operatorCreated.body.user as { id: string }).id;
      for (const tool of ["add_ticket_note", "issue_refund"]) {
        const grant = await call("PUT", `/api/admin/users/${operatorId}/grants/${tool}`, admin, {
          canApprove: true,
          approveLimit: tool === "issue_refund" ? { minor: 500000, currency: "EUR" } : null,
          canAuthor: tool !== "issue_refund",
          authorLimit: null,
        });
        expect(grant.status, JSON.stringify(grant.body)).toBe(200);
      }
      // The desk's intents: what a task's contract may name, and the tools each permits. A new desk has
      // none and no default intent, so a task without a contract permits replies and notes only.
      const catalog = await call("GET", "/api/admin/desks/freight/intents", admin);
      expect(catalog.body.defaultIntent).toBeNull();
      const intents = await call("PUT", "/api/admin/desks/freight/intents", admin, {
        baseDigest: catalog.body.digest,
        intents: [{ name: "refund_request", label: "Refund request", permittedTools: ["add_ticket_note", "send_reply", "issue_refund"] }],
        note: "Our first intent",
      });
      expect(intents.status, JSON.stringify(intents.body)).toBe(200);

      // Step 3: the systems of record push accounts and invoices — a file through the importer.
      const integrationAuth = { authorization: `Bearer ${integrationKey}` };
      const updatedAt = new Date(Date.now() - 60_000).toISOString();
      const file = path.join(dir, "billing.ndjson");
      const lines = [
        { kind: "account", id: "cus_1001", name: "Fjordline Logistics AS", sourceVersion: 3, sourceUpdatedAt: updatedAt },
        { kind: "account", id: "cus_1002", name: "Kvarken Shipping Oy", sourceVersion: 1, sourceUpdatedAt: updatedAt },
        ...Array.from({ length: 40 }, (_, k) => ({
          kind: "invoice",
          id: `INV-2026-${String(k + 1).padStart(4, "0")}`,
          accountId: k % 2 === 0 ? "cus_1001" : "cus_1002",
          status: "open",
          currency: "EUR",
          totalMinor: 250000 + k,
          openMinor: 250000 + k,
          fees: [],
          dueDate: isoDay(30),
          sourceVersion: 7,
          sourceUpdatedAt: updatedAt,
        })),
      ];
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
      const imported = npmRun("import", ["--desk", "freight", "--url", instances[0].origin, "--key", integrationKey, file], env());
      expect(imported).toMatch(/42/);
      // A replay of the same file changes nothing (every line not newer).
      const replay = await fetch(`${next().origin}/api/v1/records/batch`, {
        method: "POST",
        headers: { ...integrationAuth, "content-type": "application/x-ndjson" },
        body: fs.readFileSync(file),
      });
      const replayed = (await replay.json()) as { lines: number; applied: number; ignored: number; errors: unknown[] };
      expect(replayed).toMatchObject({ lines: 42, applied: 0, ignored: 42, errors: [] });
      const stored = await call("GET", "/api/v1/records/invoice/INV-2026-0001", integrationAuth);
      expect(stored.status).toBe(200);
      expect(stored.body.record).toMatchObject({ id: "INV-2026-0001", sourceVersion: 7 });
      expect((stored.body.record as { syncedAt: string | null }).syncedAt).not.toBeNull();

      // Step 4: the ticketing integration opens the task for a ticket.
      const opened = await call("POST", "/api/v1/tasks", integrationAuth, {
        ticketId: "ZD-88231",
        accountId: "cus_1001",
        subject: "Refund for the damaged pallets on INV-2026-0001",
        parts: [{ source: "customer_message", text: "Two pallets arrived crushed. Please refund 1,200.00 EUR on invoice INV-2026-0001." }],
        contract: { intent: "refund_request", constraints: {} },
      });
      expect(opened.status, JSON.stringify(opened.body)).toBe(201);
      const task = opened.body.task as { id: string; revision: number };
      expect(task.revision).toBe(1);

      // Step 5: the agent submits its plan; the refund waits for a person.
      const refund = { invoiceId: "INV-2026-0001", amount: { minor: 120000, currency: "EUR" }, reason: "Two pallets damaged in transit" };
      const submitted = await call("POST", `/api/v1/tasks/${task.id}/runs`, agent, {
        taskRevision: task.revision,
        steps: [
          { id: "s1", tool: "add_ticket_note", args: { ticketId: "ZD-88231", note: "Refund of the damaged pallets proposed." } },
          { id: "s2", tool: "issue_refund", args: refund },
        ],
      });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
      const run = submitted.body.run as { id: string; planVersion: number; status: string; steps: { id: string; digest: string }[] };
      expect(run.status).toBe("pending_review");

      // Step 6: the operator approves it (signed in through another instance on PostgreSQL).
      const operator = { cookie: await signIn(OPERATOR.email, OPERATOR.password) };
      const approved = await call("POST", `/api/runs/${run.id}/approvals`, operator, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: `approve-${run.id}` });
      expect(approved.status, JSON.stringify(approved.body)).toBe(201);

      // Step 7: the executor claims each step, fences with the live versions right before its write, writes, reports.
      const claimOf = async (runId: string, step: { id: string; digest: string }) => {
        const claim = await call("POST", `/api/v1/runs/${runId}/steps/${step.id}/claim`, agent, { digest: step.digest, taskRevision: task.revision });
        expect(claim.status, JSON.stringify(claim.body)).toBe(200);
        return claim.body.claim as { token: string; recordVersions?: Record<string, number> };
      };
      const note = await claimOf(run.id, run.steps.find((s) => s.id === "s1")!);
      expect((await call("POST", `/api/v1/claims/${note.token}/fence`, agent, {})).status).toBe(200);
      expect((await call("POST", `/api/v1/runs/${run.id}/steps/s1/outcome`, agent, { token: note.token, status: "succeeded" })).status).toBe(200);
      // The invoice moved at its source after the approval (live version 8): the fence refuses, nothing is written, the run stops.
      const moved = await claimOf(run.id, run.steps.find((s) => s.id === "s2")!);
      expect(moved.recordVersions).toEqual({ "invoice:INV-2026-0001": 7 });
      const refusedFence = await call("POST", `/api/v1/claims/${moved.token}/fence`, agent, { targetVersions: { "invoice:INV-2026-0001": 8 } });
      expect(refusedFence.status, JSON.stringify(refusedFence.body)).toBe(409);
      expect(refusedFence.body.error).toMatchObject({ code: "target_changed", record: "invoice:INV-2026-0001", approvedVersion: 7, liveVersion: 8 });
      // The executor wrote nothing and says so; the claimed refund no longer holds money.
      const notWritten = await call("POST", `/api/v1/runs/${run.id}/steps/s2/outcome`, agent, { token: moved.token, status: "failed", detail: "target_changed at the fence: nothing written" });
      expect(notWritten.status, JSON.stringify(notWritten.body)).toBe(200);
      const stopped = await call("GET", `/api/v1/runs/${run.id}`, agent);
      expect((stopped.body.run as { status: string }).status).toBe("stopped");

      // The billing system's version 8 arrives (another refund of 300.00 was booked there). The claimed refund
      // of the stopped run waits for a person to reconcile it, and holds its money until then.
      const v8 = await call("PUT", "/api/v1/records/invoice/INV-2026-0001", integrationAuth, {
        accountId: "cus_1001", status: "open", currency: "EUR", totalMinor: 250000, openMinor: 220000, fees: [], dueDate: isoDay(30), sourceVersion: 8, sourceUpdatedAt: new Date().toISOString(),
      });
      expect(v8.body).toMatchObject({ applied: true });

      // A refund on another of the account's invoices (INV-2026-0003: 2,500.02 open at version 7) runs to the end.
      const refund3 = { invoiceId: "INV-2026-0003", amount: { minor: 120000, currency: "EUR" }, reason: "Two pallets damaged in transit" };
      const again = await call("POST", `/api/v1/tasks/${task.id}/runs`, agent, { taskRevision: task.revision, steps: [{ id: "r1", tool: "issue_refund", args: refund3 }] });
      expect(again.status, JSON.stringify(again.body).slice(0, 600)).toBe(201);
      const run2 = again.body.run as { id: string; planVersion: number; steps: { id: string; digest: string }[] };
      const approved2 = await call("POST", `/api/runs/${run2.id}/approvals`, operator, { planVersion: run2.planVersion, stepIds: "all", idempotencyKey: `approve-${run2.id}` });
      expect(approved2.status, JSON.stringify(approved2.body)).toBe(201);
      const claim2 = await claimOf(run2.id, run2.steps[0]);
      expect(claim2.recordVersions).toEqual({ "invoice:INV-2026-0003": 7 });
      expect((await call("POST", `/api/v1/claims/${claim2.token}/fence`, agent, { targetVersions: { "invoice:INV-2026-0003": 7 } })).status).toBe(200);
      // ...the billing system books the refund (its version 8), and the executor reports that version.
      const reported = await call("POST", `/api/v1/runs/${run2.id}/steps/r1/outcome`, agent, { token: claim2.token, status: "succeeded", targetVersions: { "invoice:INV-2026-0003": 8 } });
      expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      expect(((await call("GET", `/api/v1/runs/${run2.id}`, agent)).body.run as { status: string }).status).toBe("completed");

      // Until version 8 is synced, the refunded 1,200.00 still holds: 2,500.02 open less 1,200.00 written leaves 1,300.02.
      const tooMuch = { ...refund3, amount: { minor: 130003, currency: "EUR" }, reason: "Second claim for the same pallets" };
      const plan3 = await call("POST", `/api/v1/tasks/${task.id}/runs`, agent, { taskRevision: task.revision, steps: [{ id: "x1", tool: "issue_refund", args: tooMuch }] });
      expect(plan3.status, JSON.stringify(plan3.body).slice(0, 500)).toBe(422);
      expect(JSON.stringify(plan3.body)).toMatch(/not yet in the synced balance/);
      // Version 8 (1,300.02 open) ends the hold: 1,300.02 is what can be refunded, counted once.
      const synced = await call("PUT", "/api/v1/records/invoice/INV-2026-0003", integrationAuth, {
        accountId: "cus_1001", status: "open", currency: "EUR", totalMinor: 250002, openMinor: 130002, fees: [], dueDate: isoDay(30), sourceVersion: 8, sourceUpdatedAt: new Date().toISOString(),
      });
      expect(synced.body).toMatchObject({ applied: true });
      const over = await call("POST", `/api/v1/tasks/${task.id}/runs`, agent, { taskRevision: task.revision, steps: [{ id: "x3", tool: "issue_refund", args: tooMuch }] });
      expect(over.status, JSON.stringify(over.body).slice(0, 500)).toBe(422);
      expect(JSON.stringify(over.body)).not.toMatch(/not yet in the synced balance/);
      const exact = await call("POST", `/api/v1/tasks/${task.id}/runs`, agent, { taskRevision: task.revision, steps: [{ id: "x2", tool: "issue_refund", args: { ...tooMuch, amount: { minor: 130002, currency: "EUR" } } }] });
      expect(exact.status, JSON.stringify(exact.body).slice(0, 500)).toBe(201);
    });
  });
}
