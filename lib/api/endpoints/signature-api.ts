/** Declarations of passkeys and signed approvals (`/api`, session): a signing challenge for an approval, the roles that must have a passkey (docs/api.md). */
import { z } from "zod";
import { ROLES } from "../../people/admin-schemas";
import { defineEndpoint } from "../contract";
import { ADMIN, DESK, runParams } from "./common";

/** `POST /api/runs/{runId}/signature-challenges`: the plan version the card shows and the steps to sign. */
export const signatureChallengeBodySchema = z
  .object({
    planVersion: z.number().int().min(1),
    stepIds: z.union([z.literal("all"), z.array(z.string().min(1).max(64)).min(1).max(100)]),
  })
  .strict();

export const createSignatureChallengeEndpoint = defineEndpoint({
  id: "createSignatureChallenge",
  method: "POST",
  path: "/api/runs/{runId}/signature-challenges",
  summary: "A single-use challenge for the viewer's passkey to sign an approval of these steps at this plan version",
  caller: DESK,
  params: runParams,
  body: signatureChallengeBodySchema,
  success: {
    status: [201],
    schema: z.object({
      nonce: z.string(),
      challenge: z.string().describe("base64url SHA-256 of the canonical payload (RFC 8785)"),
      payload: z.object({ runId: z.string(), planVersion: z.number().int(), steps: z.array(z.object({ stepId: z.string(), digest: z.string() })), approverId: z.string(), nonce: z.string() }),
      covers: z.string().describe("in words, what the signature covers"),
      expiresAt: z.string(),
      options: z.looseObject({ challenge: z.string() }).describe("WebAuthn PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get (user verification required)"),
    }),
    description: "201 {nonce, challenge, payload, covers, expiresAt, options}; answer with POST /api/runs/{runId}/approvals and `signature: {nonce, response}`",
  },
  refusals: ["not_found", "stale_plan_version", "signature_required"],
});

/**
 * `GET /api/admin/passkey-requirements`'s answer: the roles that require a passkey (ROLES order) and,
 * for every role, how many enabled people of it have none registered yet (those of a required role
 * are sent to /account/passkeys by their next page). Source: docs/security.md "Passkeys and signed approvals"
 */
export const passkeyRequirementOverviewSchema = z.object({
  roles: z.array(z.enum(ROLES)),
  withoutPasskey: z.object({ operator: z.number().int(), supervisor: z.number().int(), admin: z.number().int() }),
});

export const getPasskeyRequirementsEndpoint = defineEndpoint({
  id: "getPasskeyRequirements",
  method: "GET",
  path: "/api/admin/passkey-requirements",
  summary: "The roles that must have a passkey, and how many people of each role have none yet",
  caller: ADMIN,
  success: { status: [200], schema: passkeyRequirementOverviewSchema, description: "{roles, withoutPasskey: {operator, supervisor, admin}}" },
  refusals: [],
});

/** `PUT /api/admin/passkey-requirements`: whether people of a role must have a passkey. */
export const passkeyRequirementBodySchema = z.object({ role: z.enum(ROLES), required: z.boolean() }).strict();

export const setPasskeyRequirementEndpoint = defineEndpoint({
  id: "setPasskeyRequirement",
  method: "PUT",
  path: "/api/admin/passkey-requirements",
  summary: "Require (or stop requiring) a passkey for everyone of a role",
  caller: ADMIN,
  body: passkeyRequirementBodySchema,
  success: { status: [200], schema: z.object({ roles: z.array(z.enum(ROLES)) }), description: "{roles}: the roles that now require a passkey" },
  refusals: [],
});
