import { z } from "zod";

/**
 * A signed approval as stored beside its digest (the approval's `signature` column, the `approved`
 * audit event, the export): the payload the challenge was derived from, the relying party it was
 * made for, the approver's credential (id and COSE public key, base64url) and the WebAuthn assertion
 * exactly as the authenticator returned it (base64url: authenticator data, client data JSON,
 * signature, user handle). Everything a standard WebAuthn library needs to check it offline.
 */
export const signedApprovalSchema = z.object({
  format: z.literal("webauthn-assertion-v1"),
  payload: z.object({
    runId: z.string(),
    planVersion: z.number().int(),
    steps: z.array(z.object({ stepId: z.string(), digest: z.string() })),
    approverId: z.string(),
    nonce: z.string(),
  }),
  challenge: z.string(),
  rpID: z.string(),
  origin: z.string(),
  credentialId: z.string(),
  publicKey: z.string(),
  authenticatorData: z.string(),
  clientDataJSON: z.string(),
  signature: z.string(),
  userHandle: z.string().nullable(),
});
export type SignedApproval = z.infer<typeof signedApprovalSchema>;

/** The assertion a browser returns (`startAuthentication` of @simplewebauthn/browser), bounded. */
export const assertionResponseSchema = z.object({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal("public-key"),
  response: z.object({
    authenticatorData: z.string().min(1).max(4096),
    clientDataJSON: z.string().min(1).max(4096),
    signature: z.string().min(1).max(1024),
    userHandle: z.string().max(1024).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  authenticatorAttachment: z.string().max(64).optional(),
});

/** What an approval body carries for signed steps: the challenge's nonce and the assertion over it. */
export const offeredSignatureSchema = z.object({ nonce: z.string().min(1).max(100), response: assertionResponseSchema }).strict();
export type OfferedSignature = z.infer<typeof offeredSignatureSchema>;
