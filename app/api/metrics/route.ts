import { metricsEndpoint } from "@/lib/api/endpoints/metrics-api";
import { DomainError } from "@/lib/errors/domain-error";
import { prisma } from "@/lib/server/db/db";
import { METRICS_CONTENT_TYPE, metricsTokenMatches, renderMetrics } from "@/lib/server/metrics/metrics";
import { route } from "@/lib/server/route/route";

/**
 * `GET /api/metrics` → 200 Prometheus text (lib/api/endpoints/metrics-api.ts `metricsEndpoint`).
 * Off (404) without `PLANDESK_METRICS_TOKEN`; 401 without that bearer token. Never cached.
 */
export const GET = route(metricsEndpoint, async ({ req }) => {
  const token = process.env.PLANDESK_METRICS_TOKEN?.trim();
  if (!token) throw new DomainError("not_found", "Metrics are off: set PLANDESK_METRICS_TOKEN to serve them.");
  if (!metricsTokenMatches(req.headers.get("authorization"), token)) throw new DomainError("unauthorized", "Send the metrics token as 'Authorization: Bearer <token>'.");
  return new Response(await renderMetrics(prisma), { status: 200, headers: { "Content-Type": METRICS_CONTENT_TYPE, "Cache-Control": "no-store" } });
});
