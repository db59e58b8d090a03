import { liveHealthEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";

export const dynamic = "force-dynamic";

/** `GET /api/health/live` → 200 {status: "live"} while the process answers (lib/api/endpoints/health-api.ts). Public: nothing to authorise. */
export const GET = route(liveHealthEndpoint, async () => ({ body: { status: "live" as const }, headers: { "Cache-Control": "no-store" } }));
