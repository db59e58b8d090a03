/**
 * `npm run verify-approvals` on a real signed approval (made with the software authenticator,
 * against this file's own database — SQLite, or PostgreSQL with PLANDESK_TEST_DB=postgres): the
 * run's export verifies, from the database and from a saved file, and names who signed which
 * digest; an export with a changed digest, a flipped signature byte, a swapped public key or a
 * changed amount fails (exit 1), and so does a key that is no longer one of the approver's passkeys.
 * The diff corpus carries the same signed approval with the approver's public key, and the command
 * re-checks a saved corpus offline the same way; a tampered corpus fails.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../lib/demo/desk-data";
import { gateRule } from "../lib/gate-policy/rules";
import type { StepInput } from "../lib/plan/schema";
import { approveSteps } from "../lib/server/approvals/approve-steps";
import { getRunAudit } from "../lib/server/audit/run-audit";
import { diffCorpusStream, type DiffCorpusLine } from "../lib/server/audit/diff-corpus";
import { loadViewer, type AgentCaller, type Viewer } from "../lib/server/auth/viewer";
import { prisma } from "../lib/server/db/db";
import { DEMO_AGENT_ID } from "../lib/server/demo/seed";
import { submitEdit } from "../lib/server/edits/submit-edit";
import { loadGatePolicy } from "../lib/server/gate-policy/load-gate-policy";
import { saveGatePolicy } from "../lib/server/gate-policy/save-gate-policy";
import { relyingParty } from "../lib/server/auth/passkey-plugin";
import { loadRun } from "../lib/server/plans/load-run";
import { toRunView } from "../lib/server/plans/run-view";
import { submitRun } from "../lib/server/runs/submit-run";
import { createSignatureChallenge } from "../lib/server/signatures/signature-challenge";
import { editable, prepareTestDatabase, TEST_NOW, withRequiredReasons } from "../testing/test-support";
import { softAuthenticator, type SoftAuthenticator } from "../testing/soft-authenticator";
import { verifyApprovals } from "./verify-approvals";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
let senior: Viewer;
let supervisor: Viewer;
let key: SoftAuthenticator;
let runId: string;
let refundId: string;
let exported: Record<string, unknown>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verify-approvals-"));

/** Runs the command on `exp` saved as a file; the exit code and what it printed. */
async function onFile(exp: unknown) {
  const file = path.join(dir, `${nanoid()}.json`);
  fs.writeFileSync(file, JSON.stringify(exp));
  const lines: string[] = [];
  const r = await verifyApprovals(["--file", file], (l) => lines.push(l));
  return { code: r.code, text: lines.join("\n"), checks: r.checks };
}

/** Runs the command on `text` saved as a file (a corpus in JSON Lines). */
async function onText(text: string) {
  const file = path.join(dir, `${nanoid()}.jsonl`);
  fs.writeFileSync(file, text);
  const lines: string[] = [];
  const r = await verifyApprovals(["--file", file], (l) => lines.push(l));
  return { code: r.code, text: lines.join("\n"), checks: r.checks };
}

/** A deep copy of the export with the signed refund's `approved` event changed by `change`. */
function tampered(change: (data: { digest: string; signature: Record<string, unknown> }, exp: Record<string, unknown>) => void) {
  const copy = structuredClone(exported);
  const event = (copy.events as { type: string; data: { stepId: string; digest: string; signature: Record<string, unknown> } }[]).find((e) => e.type === "approved" && e.data.stepId === refundId)!;
  change(event.data, copy);
  return copy;
}

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  const live = await loadGatePolicy(prisma);
  await saveGatePolicy({ id: "usr_admin", role: "admin" }, {
    baseVersion: live.version,
    rules: [...live.rules.map(({ id: _i, position: _p, ...r }) => r), gateRule({ tool: "issue_refund", minAmountMinor: 150000, decision: "one", requireSignature: true, note: "Refunds of $1,500 and more are signed" })],
    note: "Signed refunds",
  });
  key = softAuthenticator();
  await key.register("usr_senior");
  // a reply run to which the senior adds a $1,600.00 refund, then signs and approves it
  const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75003" } });
  const steps: StepInput[] = [{ id: "st_reply", tool: "send_reply", args: { ticketId: "75003", body: "Thanks, we are looking into it and will write again today." } }];
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `t:${nanoid()}`, TEST_NOW);
  runId = run.id;
  const v = toRunView(await loadRun(runId), TEST_NOW);
  const edited = editable(v.steps as never);
  // a person's added refund carries the reasons the gate policy requires of it (evidence: its invoice)
  edited.push(...withRequiredReasons([{ id: "new", tool: "issue_refund", args: { invoiceId: "in_74201", amount: { minor: 160000, currency: "USD" }, reason: "Goodwill for the delay" }, provenance: {}, author: { kind: "model" } } as never]));
  const res = await submitEdit(senior, runId, { baseVersion: v.planVersion, steps: edited }, TEST_NOW);
  refundId = res.planVersion.steps.find((s) => s.tool === "issue_refund")!.id;
  const c = await createSignatureChallenge(senior, runId, { planVersion: res.planVersion.version, stepIds: "all" }, TEST_NOW);
  await approveSteps(senior, runId, { planVersion: res.planVersion.version, stepIds: "all", idempotencyKey: `a-${nanoid()}`, signature: { nonce: c.nonce, response: key.assert(c.challenge, relyingParty()) } }, TEST_NOW);
  // the export a supervisor downloads: the body of GET /api/runs/{runId}/audit
  const audit = await getRunAudit(supervisor, runId, TEST_NOW);
  exported = JSON.parse(JSON.stringify({ events: audit.events, run: audit.run, planVersions: audit.planVersions, edits: audit.edits, effectComparisons: audit.effectComparisons }));
});

describe("npm run verify-approvals", () => {
  it("passes on the real export, from the database and from the file, and says who signed which digest", async () => {
    const digest = (await prisma.approval.findFirstOrThrow({ where: { runId, stepId: refundId } })).digest;
    const lines: string[] = [];
    const fromDb = await verifyApprovals(["--run", runId], (l) => lines.push(l));
    expect(fromDb.code).toBe(0);
    expect(fromDb.checks).toHaveLength(1); // the reply needs no signature
    expect(fromDb.checks[0]).toMatchObject({ stepId: refundId, digest, approverId: "usr_senior", credentialId: key.credentialId, fault: null });
    expect(lines.join("\n")).toContain(`OK   step ${refundId} (plan v2) digest ${digest.slice(0, 16)}…: signed by ${senior.name} (usr_senior)`);
    expect(lines.at(-1)).toBe("All 1 verify.");

    const file = await onFile(exported);
    expect(file.code).toBe(0);
    expect(file.checks[0]).toMatchObject({ stepId: refundId, digest, approverId: "usr_senior", fault: null });
  });

  it("fails on a changed digest, a flipped signature byte, a swapped key or a changed amount", async () => {
    const otherDigest = "9".repeat(64);
    const changedDigest = await onFile(tampered((d) => {
      d.digest = otherDigest;
      (d.signature.payload as { steps: { digest: string }[] }).steps[0].digest = otherDigest;
    }));
    expect(changedDigest.code).toBe(1);
    expect(changedDigest.checks[0].fault).toBe("digest_mismatch"); // not the digest of the exported step

    // the digest changed in the event and the signature's payload alike, plan versions left out
    const noPlans = await onFile(tampered((d, exp) => {
      d.digest = otherDigest;
      (d.signature.payload as { steps: { digest: string }[] }).steps[0].digest = otherDigest;
      delete exp.planVersions;
    }));
    expect([noPlans.code, noPlans.checks[0].fault]).toEqual([1, "payload_mismatch"]);

    const flipped = await onFile(tampered((d) => {
      const sig = Buffer.from(d.signature.signature as string, "base64url");
      sig[sig.length - 1] ^= 1;
      d.signature.signature = sig.toString("base64url");
    }));
    expect([flipped.code, flipped.checks[0].fault]).toEqual([1, "bad_signature"]);
    expect(flipped.text).toContain(`FAIL step ${refundId}`);
    expect(flipped.text).toContain("1 of 1 do not verify.");

    const stranger = softAuthenticator();
    const swapped = await onFile(tampered((d) => {
      d.signature.publicKey = Buffer.from(stranger.publicKey, "base64").toString("base64url");
    }));
    expect([swapped.code, swapped.checks[0].fault]).toEqual([1, "bad_signature"]);

    const amount = await onFile(tampered((_d, exp) => {
      const pv = (exp.planVersions as { version: number; steps: { id: string; args: { amount: { minor: number } } }[] }[]).find((p) => p.version === 2)!;
      pv.steps.find((s) => s.id === refundId)!.args.amount.minor = 150000;
    }));
    expect([amount.code, amount.checks[0].fault]).toEqual([1, "digest_mismatch"]);
  });

  it("from the database, a key that is no longer the approver's passkey fails; an unknown run or no arguments is exit 2", async () => {
    const lines: string[] = [];
    expect((await verifyApprovals(["--run", "run_nope"], (l) => lines.push(l))).code).toBe(2);
    expect((await verifyApprovals([], (l) => lines.push(l))).code).toBe(2);
    const row = await prisma.passkey.findFirstOrThrow({ where: { credentialID: key.credentialId } });
    await prisma.passkey.delete({ where: { id: row.id } });
    try {
      const r = await verifyApprovals(["--run", runId], () => {});
      expect([r.code, r.checks[0].fault]).toEqual([1, "key_not_registered"]);
    } finally {
      await prisma.passkey.create({ data: row });
    }
  });
});

describe("the diff corpus carries each signed approval with the approver's key", () => {
  /** The corpus a supervisor downloads (`GET /api/audit/diffs.jsonl`), as text and as lines. */
  async function corpus() {
    const res = new Response(await diffCorpusStream(supervisor, TEST_NOW));
    const text = await res.text();
    return { text, lines: text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as DiffCorpusLine) };
  }
  /** The corpus text with the signed edit's line changed by `change`. */
  async function tamperedCorpus(change: (line: DiffCorpusLine) => void) {
    const { lines } = await corpus();
    const line = lines.find((l) => l.runId === runId && l.signedApprovals?.length)!;
    change(line);
    return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
  }

  it("the edit's line carries the signed approval: credential id, COSE public key, authenticator data, client data, signature", async () => {
    const { lines } = await corpus();
    const line = lines.find((l) => l.runId === runId)!;
    expect([line.fromVersion, line.toVersion]).toEqual([1, 2]);
    const approval = (await prisma.approval.findFirstOrThrow({ where: { runId, stepId: refundId } }));
    expect(line.signedApprovals).toHaveLength(1); // the reply needs no signature
    const signed = line.signedApprovals![0];
    expect(signed).toMatchObject({ stepId: refundId, planVersion: 2, digest: approval.digest, approverId: "usr_senior", approverName: senior.name, state: "active" });
    expect(signed.signature).toMatchObject({ format: "webauthn-assertion-v1", credentialId: key.credentialId, publicKey: Buffer.from(key.publicKey, "base64").toString("base64url") });
    for (const f of ["authenticatorData", "clientDataJSON", "signature"] as const) expect(signed.signature[f]).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(signed.signature.payload).toMatchObject({ runId, planVersion: 2, approverId: "usr_senior", steps: expect.arrayContaining([{ stepId: refundId, digest: approval.digest }]) });
    // lines without signed approvals carry no such field
    expect(lines.filter((l) => l.runId !== runId).every((l) => l.signedApprovals === undefined)).toBe(true);
  });

  it("npm run verify-approvals -- --file <corpus> re-checks it offline; a changed digest, signature, key or amount fails", async () => {
    const ok = await onText((await corpus()).text);
    expect(ok.code).toBe(0);
    expect(ok.checks.map((c) => [c.stepId, c.planVersion, c.approverId, c.credentialId, c.fault])).toEqual([[refundId, 2, "usr_senior", key.credentialId, null]]);
    expect(ok.text).toContain("diff corpus");
    expect(ok.text).toContain(`OK   step ${refundId} (plan v2)`);

    const otherDigest = "9".repeat(64);
    const digest = await onText(await tamperedCorpus((l) => {
      const s = l.signedApprovals![0];
      s.digest = otherDigest;
      s.signature.payload.steps.find((x) => x.stepId === refundId)!.digest = otherDigest;
    }));
    expect([digest.code, digest.checks[0].fault]).toEqual([1, "digest_mismatch"]);

    const flipped = await onText(await tamperedCorpus((l) => {
      const sig = Buffer.from(l.signedApprovals![0].signature.signature, "base64url");
      sig[sig.length - 1] ^= 1;
      l.signedApprovals![0].signature.signature = sig.toString("base64url");
    }));
    expect([flipped.code, flipped.checks[0].fault]).toEqual([1, "bad_signature"]);
    expect(flipped.text).toContain("1 of 1 do not verify.");

    const stranger = softAuthenticator();
    const swapped = await onText(await tamperedCorpus((l) => {
      l.signedApprovals![0].signature.publicKey = Buffer.from(stranger.publicKey, "base64").toString("base64url");
    }));
    expect([swapped.code, swapped.checks[0].fault]).toEqual([1, "bad_signature"]);

    const amount = await onText(await tamperedCorpus((l) => {
      (l.after.steps.find((s) => s.id === refundId)!.args as { amount: { minor: number } }).amount.minor = 150000;
    }));
    expect([amount.code, amount.checks[0].fault]).toEqual([1, "digest_mismatch"]);

    const garbage = await onText("not json\n");
    expect(garbage.code).toBe(2);
  });
});
