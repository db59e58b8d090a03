import { z } from "zod";
import { defineEndpoint } from "../contract";

/**
 * `GET /api/metrics`: the service's metrics for a Prometheus scraper (lib/server/metrics/metrics.ts
 * lists them). Public in the sense of the route wrapper (no session or key): the credential is
 * the operator's own scrape token, `PLANDESK_METRICS_TOKEN`.
 */
export const metricsEndpoint = defineEndpoint({
  id: "getMetrics",
  method: "GET",
  path: "/api/metrics",
  summary: "Metrics in Prometheus' text format: decision latency per endpoint, refusals by code, runs waiting and their age, webhook backlog, pool use",
  description:
    "For a Prometheus scraper, not for people or agents: send `Authorization: Bearer <PLANDESK_METRICS_TOKEN>`. Without that variable set the endpoint is off (404 `not_found`); a missing or wrong token is 401 `unauthorized`. Labels carry endpoint templates, refusal codes, run statuses and desk ids only — no customer text, ids of runs or people, or secrets. Runs waiting and the webhook backlog are read when scraped (indexed counts).",
  caller: { kind: "public" },
  success: {
    status: [200],
    schema: z.string().meta({ description: "Prometheus text exposition format 0.0.4" }),
    description: "text/plain; version=0.0.4",
    contentType: "text/plain",
  },
  refusals: ["not_found", "unauthorized"],
});
