import { parkRunEndpoint, unparkRunEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { parkRun, unparkRun } from "@/lib/server/ownership/park-run";

/** `POST /api/runs/{runId}/park` `{until?}` → 201 `{park}` (`parkRunEndpoint`): the caller's own park, on their desk. */
export const POST = route(parkRunEndpoint, async ({ caller, params, body }) => ({ status: 201, body: { park: await parkRun(caller, params.runId, body.until) } }));

/** `DELETE /api/runs/{runId}/park` → 200 `{park: null}` (`unparkRunEndpoint`). */
export const DELETE = route(unparkRunEndpoint, async ({ caller, params }) => {
  await unparkRun(caller, params.runId);
  return { body: { park: null } };
});
