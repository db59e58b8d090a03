import { searchRecordsEndpoint } from "@/lib/api/endpoints";
import { searchRecords } from "@/lib/server/account-data/search-records";
import { route } from "@/lib/server/route/route";

/** `GET /api/account-data/{kind}?q=in_741` → `{records}` (lib/api/endpoints.ts `searchRecordsEndpoint`). */
export const GET = route(searchRecordsEndpoint, async ({ caller, params, query }) => ({ body: { records: await searchRecords(caller, params.kind, query.q, { desk: query.desk }) } }));
