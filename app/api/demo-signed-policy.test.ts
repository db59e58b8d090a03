/**
 * The demo desk's seeded gate policy signs large money moves, against this file's own database
 * (SQLite, or PostgreSQL with PLANDESK_TEST_DB=postgres): a refund or credit of $1,500.00 or more
 * needs the approver's passkey signature, a smaller one (the reference case's $1,489.00 refund, the
 * seeded $1,060.00 refund) does not. `POST /api/runs/{id}/approvals` for the seeded $4,199.00
 * duplicate refund without a signature answers 403 `signature_required` and approves nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { POST as approve } from "@/app/api/runs/[runId]/approvals/route";
import { DEMO_SIGNATURE_THRESHOLD_MINOR } from "@/lib/gate-policy/defaults";
import { evaluateGate } from "@/lib/gate-policy/evaluate";
import { prisma } from "@/lib/server/db/db";
import { loadGatePolicy } from "@/lib/server/gate-policy/load-gate-policy";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

let seniorCookie = "";
let supervisorCookie = "";

beforeAll(async () => {
  await prepareTestDatabase(new Date()); // the route approves at the real clock
  seniorCookie = await signInCookie("senior@plandesk.test");
  supervisorCookie = await signInCookie("supervisor@plandesk.test"); // approves up to $10,000.00
});

const seededRun = (key: string) => prisma.run.findFirstOrThrow({ where: { idempotencyKey: `seed:${key}` }, select: { id: true, planVersion: true } });

describe("the demo desk's policy signs refunds and credits of $1,500.00 and more", () => {
  it("the seeded version 1 carries the signature rules; $1,489.00 stays unsigned, $1,500.00 is signed, for refunds and credits", async () => {
    const live = await loadGatePolicy(prisma);
    expect(live.version).toBe(1);
    const signed = live.rules.filter((r) => r.requireSignature);
    expect(signed.map((r) => [r.tool, r.minAmountMinor, r.maxAmountMinor, r.decision])).toEqual([
      ["issue_refund", DEMO_SIGNATURE_THRESHOLD_MINOR, null, "one"],
      ["apply_credit", DEMO_SIGNATURE_THRESHOLD_MINOR, null, "one"],
    ]);
    const subject = (tool: string, minor: number) => ({ tool, effect: "irreversible" as const, defaultGate: "approval" as never, amount: { minor, currency: "USD" as const }, desk: "freight", accountId: "acc_halvorsen", accountTags: [] });
    for (const tool of ["issue_refund", "apply_credit"]) {
      expect(evaluateGate(live, subject(tool, 148900)).requireSignature, `${tool} $1,489.00`).toBe(false);
      expect(evaluateGate(live, subject(tool, 149999)).requireSignature, `${tool} $1,499.99`).toBe(false);
      const large = evaluateGate(live, subject(tool, 150000));
      expect(large, `${tool} $1,500.00`).toMatchObject({ requireSignature: true, approvalsRequired: 1, authorMayApprove: true });
      // the signed rule keeps what the tool's own rule asks of the step
      expect(large.requiredFields).toEqual(["title", "evidence", "risk", "stopCondition"]);
    }
    const damaged = toRunView(await loadRun((await seededRun("damaged-74992")).id), new Date());
    expect(damaged.steps.find((s) => s.tool === "issue_refund")!.requireSignature).toBeUndefined(); // $1,060.00
    const dup = toRunView(await loadRun((await seededRun("dup-74993")).id), new Date());
    expect(dup.steps.find((s) => s.tool === "issue_refund")!.requireSignature).toBe(true); // $4,199.00
  });

  it("approving the seeded $4,199.00 refund without a signature: 403 signature_required, nothing approved", async () => {
    const run = await seededRun("dup-74993");
    const res = await approve(
      apiRequest("POST", `/api/runs/${run.id}/approvals`, { cookie: supervisorCookie, origin: TEST_ORIGIN }, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: "unsigned-dup" }),
      routeCtx({ runId: run.id }),
    );
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("signature_required");
    expect(await prisma.approval.count({ where: { runId: run.id, approverId: { not: null } } })).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("pending_review");
  });

  it("the seeded $1,060.00 refund is approved without a signature", async () => {
    const run = await seededRun("damaged-74992");
    const res = await approve(
      apiRequest("POST", `/api/runs/${run.id}/approvals`, { cookie: seniorCookie, origin: TEST_ORIGIN }, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: "unsigned-damaged" }),
      routeCtx({ runId: run.id }),
    );
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await res.json()).run.status).toBe("approved");
  });
});
