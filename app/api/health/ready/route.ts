import { readyHealthEndpoint } from "@/lib/api/endpoints";
import { readyTimeoutMs } from "@/lib/health/readiness";
import { DB_PROVIDER, prisma } from "@/lib/server/db/db";
import { buildMigrations, probeReadiness, readinessAnswer } from "@/lib/server/health/probe-readiness";
import { route } from "@/lib/server/route/route";

export const dynamic = "force-dynamic";

/**
 * `GET /api/health/ready` → 200 {status: "ready"} or 503 {status: "not_ready", reasons} with
 * Retry-After (lib/api/endpoints/health-api.ts; the decision: lib/health/readiness.ts). Public:
 * nothing to authorise, nothing of the desk in the answer.
 */
export const GET = route(readyHealthEndpoint, async () =>
  readinessAnswer(await probeReadiness(prisma, { timeoutMs: readyTimeoutMs(process.env), carried: buildMigrations(DB_PROVIDER) })),
);
