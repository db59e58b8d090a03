import { setPasskeyRequirementEndpoint } from "@/lib/api/endpoints";
import { setPasskeyRequirement } from "@/lib/server/auth/passkey-requirement";
import { route } from "@/lib/server/route/route";

/** `PUT /api/admin/passkey-requirements` → 200 `{roles}` (lib/api/endpoints/signature-api.ts). */
export const PUT = route(setPasskeyRequirementEndpoint, async ({ caller, body }) => ({ status: 200, body: await setPasskeyRequirement(caller, body.role, body.required) }));
