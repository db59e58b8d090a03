/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // better-sqlite3 is a native addon and pg loads optional modules at run time; keep them (and their Prisma adapters) out of the bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  typedRoutes: false,
  // forbidden() answers pages with a real 403 (app/forbidden.tsx).
  experimental: { authInterrupts: true },
};

export default nextConfig;
