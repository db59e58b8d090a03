import { getPasskeyRequirementsEndpoint, setPasskeyRequirementEndpoint } from "@/lib/api/endpoints";
import { passkeyRequirementOverview, setPasskeyRequirement } from "@/lib/server/auth/passkey-requirement";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/passkey-requirements` → 200 `{roles, withoutPasskey}` (admins only: the route checks the caller). */
export const GET = route(getPasskeyRequirementsEndpoint, async () => ({ status: 200, body: await passkeyRequirementOverview() }));

/** `PUT /api/admin/passkey-requirements` → 200 `{roles}` (lib/api/endpoints/signature-api.ts). */
export const PUT = route(setPasskeyRequirementEndpoint, async ({ caller, body }) => ({ status: 200, body: await setPasskeyRequirement(caller, body.role, body.required) }));
