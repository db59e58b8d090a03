/**
 * Signed approvals against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): a gate rule requires the approver's passkey signature for refunds of
 * $1,500 and more. Without a signature nothing is approved (signature_required); a signature over
 * the challenge of exactly this run, plan version, step digests and approver approves, and the
 * approval stores the assertion beside the digest; a changed amount, another plan version, a
 * replayed assertion, a removed credential or a forged assertion is refused; the claim re-verifies
 * every signature, so an approval row edited or inserted in the database is not claimable.
 */
import { nanoid } from "nanoid";
import { Prisma } from "../../generated/prisma/client";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { gateRule } from "../../gate-policy/rules";
import type { StepInput } from "../../plan/schema";
import { signedApprovalSchema } from "../../signatures/schema";
import { approveSteps } from "../approvals/approve-steps";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { loadGatePolicy } from "../gate-policy/load-gate-policy";
import { saveGatePolicy } from "../gate-policy/save-gate-policy";
import { relyingParty } from "../auth/passkey-plugin";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { createSignatureChallenge } from "./signature-challenge";
import { approveAllAs, editable, prepareTestDatabase, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";
import { softAuthenticator, type SoftAuthenticator } from "../../../testing/soft-authenticator";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const admin = { id: "usr_admin", role: "admin" as const };
let senior: Viewer;
let key: SoftAuthenticator;

const view = async (runId: string) => toRunView(await loadRun(runId), TEST_NOW);

/** A reply run for `ticketId` to which the senior adds a refund of `minor` on `invoiceId` (an edit). */
async function runWithRefund(ticketId: string, minor: number, invoiceId = "in_74201") {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const steps: StepInput[] = [{ id: "st_reply", tool: "send_reply", args: { ticketId, body: "Thanks, we are looking into it and will write again today." } }];
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `t:${nanoid()}`, TEST_NOW);
  return { runId: run.id, ...(await editRefund(run.id, minor, invoiceId)) };
}

/** Sets the run's refund to `minor` (adds it when there is none): a new plan version. */
async function editRefund(runId: string, minor: number, invoiceId = "in_74201") {
  const run = await view(runId);
  const steps = editable(run.steps as never);
  const refund = steps.find((s) => s.tool === "issue_refund");
  if (refund) (refund.args as { amount: { minor: number } }).amount.minor = minor;
  else steps.push(...withRequiredReasons([{ id: "new", tool: "issue_refund", args: { invoiceId, amount: { minor, currency: "USD" }, reason: "Goodwill for the delay" }, provenance: {}, author: { kind: "model" as const } }]));
  const res = await submitEdit(senior, runId, { baseVersion: run.planVersion, steps }, TEST_NOW);
  return { version: res.planVersion.version, refundId: res.planVersion.steps.find((s) => s.tool === "issue_refund")!.id };
}

/** The senior's signature over a fresh challenge for `stepIds` at `version`, made by `by` (default: the registered key). */
async function sign(runId: string, version: number, stepIds: string[] | "all", by: SoftAuthenticator = key) {
  const c = await createSignatureChallenge(senior, runId, { planVersion: version, stepIds }, TEST_NOW);
  const rp = relyingParty();
  return { challenge: c, signature: { nonce: c.nonce, response: by.assert(c.challenge, rp) } };
}

const approve = (runId: string, version: number, stepIds: string[] | "all", signature?: Awaited<ReturnType<typeof sign>>["signature"]) =>
  approveSteps(senior, runId, { planVersion: version, stepIds, idempotencyKey: `a-${nanoid()}`, ...(signature ? { signature } : {}) }, TEST_NOW);

const refundApprovals = (runId: string, stepId: string) => prisma.approval.count({ where: { runId, stepId } });

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  const live = await loadGatePolicy(prisma);
  await saveGatePolicy(admin, {
    baseVersion: live.version,
    rules: [...live.rules.map(({ id: _i, position: _p, ...r }) => r), gateRule({ tool: "issue_refund", minAmountMinor: 150000, decision: "one", requireSignature: true, note: "Refunds of $1,500 and more are signed" })],
    note: "Signed refunds",
  });
  key = softAuthenticator();
});

describe("signed approvals", () => {
  it("without a passkey or a signature nothing is approved: signature_required (403)", async () => {
    const { runId, version, refundId } = await runWithRefund("75003", 160000);
    expect((await view(runId)).steps.find((s) => s.id === refundId)).toMatchObject({ requireSignature: true });
    const noKey = await refused(createSignatureChallenge(senior, runId, { planVersion: version, stepIds: [refundId] }, TEST_NOW));
    expect([noKey.code, noKey.status, noKey.details.passkeyRegistered]).toEqual(["signature_required", 403, false]);
    const unsigned = await refused(approve(runId, version, "all"));
    expect([unsigned.code, unsigned.status]).toEqual(["signature_required", 403]);
    expect(unsigned.details).toMatchObject({ stepIds: [refundId] });
    expect(await prisma.approval.count({ where: { runId } })).toBe(0);
    // a refund below the rule's amount needs no signature
    const small = await runWithRefund("75011", 149999, "in_75101");
    expect((await approve(small.runId, small.version, "all")).added).toBe(2);
  });

  it("a signature over exactly what the card showed approves; the approval and its event store the assertion; the claim accepts it", async () => {
    await key.register("usr_senior");
    const { runId, version, refundId } = await runWithRefund("75011", 160000, "in_75101");
    const { challenge, signature } = await sign(runId, version, "all");
    expect(challenge.covers).toContain(`run ${runId}, plan version ${version}`);
    expect(challenge.covers).toContain("$1,600.00");
    expect(challenge.options).toMatchObject({ challenge: challenge.challenge, userVerification: "required" });
    const ok = await approve(runId, version, "all", signature);
    expect(ok.added).toBe(2);
    expect(ok.run.status).toBe("approved");
    const row = await prisma.approval.findFirstOrThrow({ where: { runId, stepId: refundId } });
    const stored = signedApprovalSchema.parse(row.signature);
    expect(stored).toMatchObject({ credentialId: key.credentialId, payload: { runId, planVersion: version, approverId: "usr_senior" }, signature: signature.response.response.signature });
    expect(stored.payload.steps).toContainEqual({ stepId: refundId, digest: row.digest });
    const reply = await prisma.approval.findFirstOrThrow({ where: { runId, stepId: "st_reply" } });
    expect(reply.signature).toBeNull(); // the rule signs refunds, not replies
    const events = await prisma.auditEvent.findMany({ where: { runId, type: "approved" } });
    const event = events.find((e) => (e.data as { stepId: string }).stepId === refundId)!;
    expect(signedApprovalSchema.parse((event.data as { signature: unknown }).signature).signature).toBe(stored.signature);

    const v = await view(runId);
    const r = await claimStep(agent, runId, "st_reply", { digest: v.steps[0].digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW);
    await reportOutcome(agent, runId, "st_reply", { token: r.claim.token, status: "succeeded" }, TEST_NOW);
    const refund = v.steps.find((s) => s.id === refundId)!;
    expect((await claimStep(agent, runId, refundId, { digest: refund.digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW)).claim.stepId).toBe(refundId);
  });

  it("a changed amount, another plan version, a forged assertion or a removed credential: signature_mismatch, nothing approved", async () => {
    const { runId, version, refundId } = await runWithRefund("75003", 160000);
    const signedEarlier = await sign(runId, version, [refundId]);
    const changed = await editRefund(runId, 170000); // the amount changes after the card was signed
    const other = await refused(approve(runId, changed.version, [refundId], signedEarlier.signature));
    expect([other.code, other.status]).toEqual(["signature_mismatch", 403]);
    expect(other.message).toContain(`plan version ${version}`);

    // the challenge of the new version, signed by a key that is not the senior's
    const stranger = softAuthenticator();
    const forged = await sign(runId, changed.version, [refundId], stranger);
    expect((await refused(approve(runId, changed.version, [refundId], forged.signature))).code).toBe("signature_mismatch");
    // the senior's key over another challenge (the right nonce, the wrong bytes)
    const c = await createSignatureChallenge(senior, runId, { planVersion: changed.version, stepIds: [refundId] }, TEST_NOW);
    const wrongBytes = { nonce: c.nonce, response: key.assert(Buffer.from("something else").toString("base64url"), relyingParty()) };
    expect((await refused(approve(runId, changed.version, [refundId], wrongBytes))).code).toBe("signature_mismatch");
    // no user verification
    const c2 = await createSignatureChallenge(senior, runId, { planVersion: changed.version, stepIds: [refundId] }, TEST_NOW);
    const noUv = { nonce: c2.nonce, response: key.assert(c2.challenge, { ...relyingParty(), userVerified: false }) };
    expect((await refused(approve(runId, changed.version, [refundId], noUv))).code).toBe("signature_mismatch");
    expect(await refundApprovals(runId, refundId)).toBe(0);

    // a removed credential signs nothing
    const removable = softAuthenticator();
    const pk = await removable.register("usr_senior");
    const beforeRemoval = await sign(runId, changed.version, [refundId], removable);
    await prisma.passkey.delete({ where: { id: pk } });
    const removed = await refused(approve(runId, changed.version, [refundId], beforeRemoval.signature));
    expect(removed.code).toBe("signature_mismatch");
    expect(removed.message).toContain("removed");
    expect(await refundApprovals(runId, refundId)).toBe(0);

    // the right signature for the new version approves
    expect((await approve(runId, changed.version, [refundId], (await sign(runId, changed.version, [refundId])).signature)).added).toBe(1);
  });

  it("a replayed assertion: of two approvals racing with one signature exactly one wins, the other is signature_replayed (409); later replays too", async () => {
    const { runId, version, refundId } = await runWithRefund("75003", 160000);
    const { signature } = await sign(runId, version, [refundId]);
    const results = await Promise.allSettled([approve(runId, version, [refundId], signature), approve(runId, version, [refundId], signature)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const loser = results.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
    if (!loser) throw new Error("both approvals succeeded");
    expect([loser.reason.code, loser.reason.status]).toEqual(["signature_replayed", 409]);
    expect(await refundApprovals(runId, refundId)).toBe(1);

    // the approval withdrawn by an edit and the amount edited back: the old assertion is not accepted again
    const away = await editRefund(runId, 170000);
    const back = await editRefund(runId, 160000);
    expect(away.version).toBeLessThan(back.version);
    const replay = await refused(approve(runId, back.version, [refundId], signature));
    expect(replay.code).toBe("signature_replayed");
  });

  it("the claim re-verifies: an approval without its signature, or with a signature of another step, is approval_missing", async () => {
    const { runId, version, refundId } = await runWithRefund("75003", 160000);
    await approve(runId, version, "all", (await sign(runId, version, "all")).signature);
    const v = await view(runId);
    const r = await claimStep(agent, runId, "st_reply", { digest: v.steps[0].digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW);
    await reportOutcome(agent, runId, "st_reply", { token: r.claim.token, status: "succeeded" }, TEST_NOW);
    const row = await prisma.approval.findFirstOrThrow({ where: { runId, stepId: refundId } });
    const refund = v.steps.find((s) => s.id === refundId)!;
    const claim = () => claimStep(agent, runId, refundId, { digest: refund.digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW);

    // a database edit: the signature removed
    await prisma.approval.update({ where: { id: row.id }, data: { signature: Prisma.DbNull } });
    const missing = await refused(claim());
    expect([missing.code, missing.details.signature]).toEqual(["approval_missing", "missing"]);
    // a database edit: the payload names another digest (a signature copied from another approval)
    const other = { ...signedApprovalSchema.parse(row.signature), payload: { ...signedApprovalSchema.parse(row.signature).payload, steps: [{ stepId: refundId, digest: "0".repeat(64) }] } };
    await prisma.approval.update({ where: { id: row.id }, data: { signature: other } });
    expect((await refused(claim())).details.signature).toBe("invalid");
    // a database edit: the stored signature bytes changed
    const flipped = signedApprovalSchema.parse(row.signature);
    const sig = Buffer.from(flipped.signature, "base64url");
    sig[sig.length - 1] ^= 1;
    await prisma.approval.update({ where: { id: row.id }, data: { signature: { ...flipped, signature: sig.toString("base64url") } } });
    expect((await refused(claim())).details.signature).toBe("invalid");
    expect(await prisma.stepExecution.count({ where: { runId, stepId: refundId } })).toBe(0);
    // the signature as it was: claimable
    await prisma.approval.update({ where: { id: row.id }, data: { signature: row.signature as never } });
    expect((await claim()).claim.stepId).toBe(refundId);
  });

  it("an approval written straight into the database (no rule named, no signature) does not make a signed step claimable", async () => {
    const { runId, refundId } = await runWithRefund("75011", 160000, "in_75101");
    await approveAllAs(runId, "usr_senior");
    const v = await view(runId);
    const r = await claimStep(agent, runId, "st_reply", { digest: v.steps[0].digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW);
    await reportOutcome(agent, runId, "st_reply", { token: r.claim.token, status: "succeeded" }, TEST_NOW);
    const refund = v.steps.find((s) => s.id === refundId)!;
    const err = await refused(claimStep(agent, runId, refundId, { digest: refund.digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW));
    expect([err.code, err.details.signature]).toEqual(["approval_missing", "missing"]);
  });
});
