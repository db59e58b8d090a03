/** Declarations of the health checks a load balancer or orchestrator polls (public, nothing of the desk). */
import { z } from "zod";
import { NOT_READY_REASONS } from "../../health/readiness";
import { defineEndpoint } from "../contract";

export const liveHealthEndpoint = defineEndpoint({
  id: "healthLive",
  method: "GET",
  path: "/api/health/live",
  summary: "Liveness: the process answers",
  description:
    "200 {status: \"live\"} whenever the process answers HTTP, also while it drains or its database is down (restart it only when this stops answering). No credential; `Cache-Control: no-store`.",
  caller: { kind: "public" },
  success: { status: [200], schema: z.object({ status: z.literal("live") }), description: "{status: \"live\"}" },
  refusals: [],
});

export const readyHealthEndpoint = defineEndpoint({
  id: "healthReady",
  method: "GET",
  path: "/api/health/ready",
  summary: "Readiness: send this process traffic",
  description:
    "200 {status: \"ready\"} when the database answers a trivial query within PLANDESK_READY_TIMEOUT_MS (default 2000 ms), every migration this build carries is applied, and the process is not draining (SIGTERM/SIGINT received). Otherwise 503 {status: \"not_ready\", reasons} with `Retry-After`; reasons: `database_unreachable`, `migrations_pending`, `draining`. Answers within the bound even when the database hangs. No credential, nothing of the desk; `Cache-Control: no-store`.",
  caller: { kind: "public" },
  success: {
    status: [200, 503],
    schema: z.discriminatedUnion("status", [
      z.object({ status: z.literal("ready") }),
      z.object({ status: z.literal("not_ready"), reasons: z.array(z.enum(NOT_READY_REASONS)).min(1) }),
    ]),
    description: "200 {status: \"ready\"}; 503 {status: \"not_ready\", reasons} with Retry-After",
  },
  refusals: [],
});
