import path from "node:path";

/**
 * The database URL in force: `DATABASE_URL`, or `file:<cwd>/data/plandesk.db` (SQLite) when unset.
 * Returns `{url, provider, file?}`; `file` is the absolute SQLite path.
 * Errors: throws `Error` for a URL scheme Plandesk does not support.
 */
export function resolveDatabaseUrl(env: Record<string, string | undefined> = process.env): {
  url: string;
  provider: "sqlite" | "postgresql";
  file?: string;
} {
  const raw = env.DATABASE_URL?.trim() || `file:${path.join(/* turbopackIgnore: true */ process.cwd(), "data", "plandesk.db")}`;
  if (raw.startsWith("file:")) {
    const p = raw.slice("file:".length);
    const file = path.isAbsolute(p) ? p : path.resolve(/* turbopackIgnore: true */ process.cwd(), p);
    return { url: `file:${file}`, provider: "sqlite", file };
  }
  if (raw.startsWith("postgres://") || raw.startsWith("postgresql://")) {
    return { url: raw, provider: "postgresql" };
  }
  throw new Error(`DATABASE_URL must start with file:, postgres:// or postgresql:// (got "${raw.split(":")[0]}:")`);
}
