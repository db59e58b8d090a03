import { makeScenarioEndpoint } from "@/lib/api/endpoints/demo-api";
import { makeDemoScenario } from "@/lib/server/scenarios/demo-endpoints";
import { route } from "@/lib/server/route/route";

/** `POST /api/demo/scenarios/{name}` → 201 the ids the scenario made (demo mode only). */
export const POST = route(makeScenarioEndpoint, async ({ params }) => ({ status: 201, body: await makeDemoScenario(params.name) }));
