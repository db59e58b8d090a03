import { fileURLToPath } from "node:url";
import { carriedMigrations } from "./lib/server/db/migration-names.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The migrations this build carries, baked into the server bundle: the readiness probe compares
  // the database with them (lib/server/health/probe-readiness.ts), not with a folder changed since.
  env: { PLANDESK_BUILD_MIGRATIONS: JSON.stringify(carriedMigrations(fileURLToPath(new URL(".", import.meta.url)))) },
  reactStrictMode: true,
  poweredByHeader: false,
  // better-sqlite3 is a native addon and pg loads optional modules at run time; keep them (and their Prisma adapters) out of the bundle.
  // pino and the OpenTelemetry SDK are loaded from node_modules too (one copy per process: the
  // custom server's logger and the route handlers' share their global state).
  serverExternalPackages: [
    "better-sqlite3",
    "@prisma/adapter-better-sqlite3",
    "pg",
    "@prisma/adapter-pg",
    "pino",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/exporter-trace-otlp-http",
    "@prisma/instrumentation",
  ],
  typedRoutes: false,
  // In the browser, `zod` is lib/client/zod-browser.ts: zod, configured to parse without eval (the CSP
  // forbids it) before any schema parses; only pages that use zod load it.
  turbopack: { resolveAlias: { zod: { browser: "./lib/client/zod-browser.ts" } } },
  // forbidden() answers pages with a real 403 (app/forbidden.tsx).
  experimental: { authInterrupts: true },
  // Static files get the base security headers too (pages and the API get them, with their CSP,
  // from proxy.ts; the values are those of BASE_SECURITY_HEADERS in lib/net/security-headers.ts).
  async headers() {
    return [
      {
        source: "/_next/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
