import { createHash } from "node:crypto";
import { z } from "zod";
import { tryDigest } from "../plan/digest";
import { signedApprovalSchema } from "./schema";
import { checkSignedApproval } from "./signed-approval";

/**
 * The part of a run's audit export (`GET /api/runs/{runId}/audit`, lib/server/audit/run-audit.ts)
 * that an offline check reads: the run id, every event (the `approved` events carry
 * `data.signature`, lib/signatures/schema.ts, with the approver's public key) and, when present,
 * the plan versions with their steps (tool and args), from which each signed digest is recomputed.
 * Unknown fields are kept and ignored, so the API's whole answer is accepted as it is.
 */
export const signatureExportSchema = z.looseObject({
  run: z.looseObject({ id: z.string() }),
  events: z.array(
    z.looseObject({
      seq: z.number().optional(),
      type: z.string(),
      actor: z.looseObject({ kind: z.string(), id: z.string().nullable(), name: z.string().optional() }),
      data: z.record(z.string(), z.unknown()),
    }),
  ),
  planVersions: z.array(z.looseObject({ version: z.number().int(), steps: z.array(z.looseObject({ id: z.string(), tool: z.string(), args: z.unknown() })) })).optional(),
});
export type SignatureExport = z.infer<typeof signatureExportSchema>;

/** The result of checking one signed `approved` event. `fault` null: it verifies. */
export interface SignedStepCheck {
  seq: number | null;
  stepId: string;
  planVersion: number;
  digest: string;
  approverId: string | null;
  approverName: string | null;
  credentialId: string | null;
  /** SHA-256 (hex, first 16 characters) of the COSE public key the export names. */
  keyFingerprint: string | null;
  fault: null | "malformed" | "digest_mismatch" | "payload_mismatch" | "bad_signature" | "key_not_registered";
  /** In words, what is wrong (empty when it verifies). */
  reason: string;
}

/**
 * Re-checks every signed approval of `exp` offline with `checkSignedApproval` (SimpleWebAuthn):
 * for each `approved` event carrying `data.signature`, the signature must cover the event's run,
 * plan version, step and digest and its approver (the event's actor), and the assertion must verify
 * with the public key it names. When the export has plan versions, the event's digest must also be
 * the digest of that step's tool and arguments as exported (a changed amount is caught). When
 * `registeredKeys` is given (approver id → COSE public keys, base64url — the database's passkeys),
 * the key must be one of the approver's (a key swapped for another, with a signature re-made by it,
 * is caught). Pure; no database, no network. Source: docs/security.md "Checking a signature offline".
 */
export async function verifySignatureExport(exp: SignatureExport, registeredKeys?: Record<string, string[]>): Promise<SignedStepCheck[]> {
  const out: SignedStepCheck[] = [];
  for (const e of exp.events) {
    if (e.type !== "approved" || e.data.signature === undefined) continue;
    const stepId = String(e.data.stepId ?? "");
    const planVersion = Number(e.data.planVersion);
    const eventDigest = String(e.data.digest ?? "");
    const approverId = e.actor.kind === "user" ? e.actor.id : null;
    const base = { seq: e.seq ?? null, stepId, planVersion, digest: eventDigest, approverId, approverName: e.actor.name ?? null, credentialId: null, keyFingerprint: null };
    const parsed = signedApprovalSchema.safeParse(e.data.signature);
    if (!parsed.success || !approverId || !Number.isInteger(planVersion)) {
      out.push({ ...base, fault: "malformed", reason: "the signature record or the event is not in the expected shape" });
      continue;
    }
    const s = parsed.data;
    const check = { ...base, credentialId: s.credentialId, keyFingerprint: fingerprint(s.publicKey) };
    const exported = exp.planVersions?.find((p) => p.version === planVersion)?.steps.find((st) => st.id === stepId);
    if (exported && tryDigest(exported) !== eventDigest) {
      out.push({ ...check, fault: "digest_mismatch", reason: `the digest ${short(eventDigest)} is not that of step ${stepId} of plan version ${planVersion} as exported (${short(tryDigest(exported) ?? "not JSON")})` });
      continue;
    }
    const fault = await checkSignedApproval(s, { runId: exp.run.id, planVersion, approverId, steps: [{ stepId, digest: eventDigest }] });
    if (fault) {
      out.push({
        ...check,
        fault,
        reason: fault === "payload_mismatch" ? "the signed payload does not cover this run, plan version, step digest and approver" : "the assertion does not verify with the public key it names",
      });
      continue;
    }
    if (registeredKeys && !(registeredKeys[approverId] ?? []).includes(s.publicKey)) {
      out.push({ ...check, fault: "key_not_registered", reason: `the public key is not a passkey ${approverId} has registered now (swapped, or the passkey was removed)` });
      continue;
    }
    out.push({ ...check, fault: null, reason: "" });
  }
  return out;
}

/** One line per check, e.g. `✓ step st_2 (plan v3) digest 9f2c1a…: signed by Dana Senior (usr_senior) with key 1a2b… (credential Qx…)`. */
export function describeCheck(c: SignedStepCheck): string {
  const who = c.approverName ? `${c.approverName} (${c.approverId})` : (c.approverId ?? "nobody");
  const head = `step ${c.stepId} (plan v${c.planVersion}) digest ${short(c.digest)}`;
  return c.fault === null ? `OK   ${head}: signed by ${who} with key ${c.keyFingerprint} (credential ${c.credentialId})` : `FAIL ${head}: ${c.fault} — ${c.reason}`;
}

function fingerprint(publicKey: string): string {
  return createHash("sha256").update(Buffer.from(publicKey, "base64url")).digest("hex").slice(0, 16);
}

function short(d: string): string {
  return d.length > 16 ? `${d.slice(0, 16)}…` : d;
}
