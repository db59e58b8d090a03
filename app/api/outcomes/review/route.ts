import { outcomeReviewEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { listOutcomeReview } from "@/lib/server/outcomes/run-outcomes";

/** `GET /api/outcomes/review` → 200 `{items, nextCursor}`, supervisors only (lib/api/endpoints/outcomes-api.ts `outcomeReviewEndpoint`). */
export const GET = route(outcomeReviewEndpoint, async ({ caller, query }) => ({ body: await listOutcomeReview(caller, { cursor: query.cursor, limit: query.limit }) }));
