import { listRecordKindsEndpoint } from "@/lib/api/endpoints";
import { listRecordKinds } from "@/lib/server/records/record-kinds-admin";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/desks/{deskId}/record-kinds` → `{desk, builtIn, kinds}` (lib/api/record-kind-endpoints.ts `listRecordKindsEndpoint`). */
export const GET = route(listRecordKindsEndpoint, async ({ caller, params }) => ({ body: await listRecordKinds(caller, params.deskId) }));
