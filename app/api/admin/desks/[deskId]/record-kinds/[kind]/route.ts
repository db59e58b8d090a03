import { getRecordKindEndpoint, saveRecordKindEndpoint } from "@/lib/api/endpoints";
import { getRecordKind, saveRecordKind } from "@/lib/server/records/record-kinds-admin";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/desks/{deskId}/record-kinds/{kind}` → `{kind, inUse, versions}` (lib/api/record-kind-endpoints.ts `getRecordKindEndpoint`). */
export const GET = route(getRecordKindEndpoint, async ({ caller, params }) => ({ body: await getRecordKind(caller, params.deskId, params.kind) }));

/** `PUT /api/admin/desks/{deskId}/record-kinds/{kind}` → 200 `{kind, inUse, versions}` (lib/api/record-kind-endpoints.ts `saveRecordKindEndpoint`). */
export const PUT = route(saveRecordKindEndpoint, async ({ caller, params, body }) => ({ body: await saveRecordKind(caller, params.deskId, params.kind, body) }));
