/**
 * Test support: the statements a request sends. Installs the process-wide Prisma client
 * (`globalThis.plandeskPrisma`, which lib/server/db/db.ts uses when it is already there) made with
 * `queryEvents`, so every SQL statement of this test file's database reaches `statementsOf`.
 * Import it FIRST in the test file, before any module that opens the database; it throws when a
 * client exists already (the statements would go unseen).
 */
import { createPrisma } from "../lib/server/db/create-prisma";

/** One statement as Prisma sent it: SQL text and its parameters (a JSON array, as Prisma logs them). */
export interface CapturedStatement {
  sql: string;
  params: string;
}

const g = globalThis as unknown as { plandeskPrisma?: unknown };
if (g.plandeskPrisma) throw new Error("testing/statement-capture must be imported before any module that opens the database");
const client = createPrisma(undefined, { queryEvents: true });
let sink: CapturedStatement[] | null = null;
(client as unknown as { $on(event: "query", cb: (e: { query: string; params: string }) => void): void }).$on("query", (e) => sink?.push({ sql: e.query, params: e.params }));
g.plandeskPrisma = client;

/**
 * Runs `fn` and returns its value with every statement the process-wide client sent meanwhile, in
 * order. One capture at a time (the tests of a file run one after another); throws when nested.
 */
export async function statementsOf<T>(fn: () => Promise<T>): Promise<{ value: T; statements: CapturedStatement[] }> {
  if (sink) throw new Error("statementsOf: a capture is already running");
  const statements: CapturedStatement[] = [];
  sink = statements;
  try {
    return { value: await fn(), statements };
  } finally {
    sink = null;
  }
}
