import { createSignatureChallengeEndpoint } from "@/lib/api/endpoints";
import { createSignatureChallenge } from "@/lib/server/signatures/signature-challenge";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/signature-challenges` → 201 `{nonce, challenge, payload, covers, expiresAt, options}` (lib/api/endpoints/signature-api.ts). */
export const POST = route(createSignatureChallengeEndpoint, async ({ caller, params, body }) => ({ status: 201, body: await createSignatureChallenge(caller, params.runId, body) }));
