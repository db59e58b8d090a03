/**
 * `GET|POST /api/bench/bare` → 200 `{ok: true}`: a route handler that does nothing, so
 * `npm run bench:load` can measure the framework's own ceiling beside Plandesk's endpoints on the
 * same build and machine. Active only when the server runs with
 * `PLANDESK_BENCH=1`; otherwise 404, like any unknown path. Deliberately outside the `route()`
 * wrapper and the endpoint declarations: it is the baseline, not part of the API.
 */
export const dynamic = "force-dynamic";

const notFound = () => Response.json({ error: { code: "not_found", message: "Not found." } }, { status: 404 });
const enabled = () => process.env.PLANDESK_BENCH === "1";

export function GET(): Response {
  return enabled() ? Response.json({ ok: true }) : notFound();
}

export async function POST(req: Request): Promise<Response> {
  if (!enabled()) return notFound();
  await req.text(); // read the body like a real handler would
  return Response.json({ ok: true });
}
