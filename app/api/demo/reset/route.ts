import { resetDemoEndpoint } from "@/lib/api/endpoints/demo-api";
import { resetDemo } from "@/lib/server/scenarios/demo-endpoints";
import { route } from "@/lib/server/route/route";

/** `POST /api/demo/reset` → `{reset: {ms, emptyMs, restored, seeded}}` (demo mode and admins only). */
export const POST = route(resetDemoEndpoint, async () => ({ body: { reset: await resetDemo() } }));
