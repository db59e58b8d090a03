/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // better-sqlite3 is a native addon and pg loads optional modules at run time; keep them (and their Prisma adapters) out of the bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
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
