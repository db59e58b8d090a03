import { listScenariosEndpoint } from "@/lib/api/endpoints/demo-api";
import { demoScenarios } from "@/lib/server/scenarios/demo-endpoints";
import { route } from "@/lib/server/route/route";

/** `GET /api/demo/scenarios` → `{scenarios}` (demo mode only). */
export const GET = route(listScenariosEndpoint, async () => ({ body: { scenarios: demoScenarios() } }));
