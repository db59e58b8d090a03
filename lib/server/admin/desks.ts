import type { ZodType } from "zod";
import { createDeskSchema, type CreateDeskInput, type DeskView } from "../../desk/desks";
import { DomainError } from "../../errors/domain-error";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { pageSize } from "../db/pagination";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { inTransaction, ok, type DbOrTx } from "../db/transaction";

/**
 * Administration of tenant desks. A desk is a boundary around its people, agents, customer
 * accounts, tickets and runs; admins create desks and assign people and agents to them (the
 * `desk` of a user or agent must name an existing desk). Every function checks the admin role
 * itself (`requireRole`, audited `denied` on refusal) and audits every change as `admin_change`
 * `{what: "desk.create", target, before, after}`.
 */

type Admin = Pick<Viewer, "id" | "role">;

function parse<T>(schema: ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) {
    throw new DomainError("bad_request", r.error.issues.map((i) => i.message).join("; "), { issues: r.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })) });
  }
  return r.data;
}

/** The counts of one page of desks: people, agents and accounts per desk, by grouped counts (one query each). */
async function countsOf(ids: string[]): Promise<Map<string, { users: number; agents: number; accounts: number }>> {
  const out = new Map(ids.map((id) => [id, { users: 0, agents: 0, accounts: 0 }]));
  if (ids.length === 0) return out;
  const where = { desk: { in: ids } };
  for (const r of await prisma.user.groupBy({ by: ["desk"], where, _count: { _all: true } })) out.get(r.desk)!.users = r._count._all;
  for (const r of await prisma.agent.groupBy({ by: ["desk"], where, _count: { _all: true } })) out.get(r.desk)!.agents = r._count._all;
  for (const r of await prisma.customerAccount.groupBy({ by: ["desk"], where, _count: { _all: true } })) out.get(r.desk)!.accounts = r._count._all;
  return out;
}

/**
 * One page of desks in id order (`opts.limit` 1–200, default 100; `opts.cursor` = the last id of
 * the previous page), each with its counts of people, agents and customer accounts.
 * Errors: 403 `forbidden` unless admin.
 */
export async function listDesks(admin: Admin, opts: { cursor?: string | null; limit?: number } = {}): Promise<{ desks: DeskView[]; nextCursor: string | null }> {
  await requireRole(admin, ["admin"], "admin.list_desks");
  const limit = pageSize(opts.limit, 100);
  const rows = await prisma.desk.findMany({ where: opts.cursor ? { id: { gt: opts.cursor } } : {}, orderBy: { id: "asc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  const counts = await countsOf(page.map((d) => d.id));
  return {
    desks: page.map((d) => ({ id: d.id, name: d.name, createdAt: d.createdAt.toISOString(), ...counts.get(d.id)! })),
    nextCursor: rows.length > limit ? page[page.length - 1].id : null,
  };
}

/**
 * Creates a desk (no people, agents or accounts yet). Audited `admin_change` {what: "desk.create"}.
 * Errors: 403 `forbidden`; 400 `bad_request` {issues} (id not 2–32 lower-case letters, digits or
 * hyphens; empty name); 409 `desk_taken` when a desk has that id.
 */
export async function createDesk(admin: Admin, raw: CreateDeskInput): Promise<DeskView> {
  await requireRole(admin, ["admin"], "admin.create_desk");
  const input = parse(createDeskSchema, raw);
  const taken = () => new DomainError("desk_taken", `A desk "${input.id}" exists already.`, { deskId: input.id });
  return inTransaction(async (tx) => {
    // a concurrent creation of the same id: the primary key fires, the retry refuses here
    if (await tx.desk.findUnique({ where: { id: input.id }, select: { id: true } })) throw taken();
    const d = await tx.desk.create({ data: { id: input.id, name: input.name } });
    await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "desk.create", target: { kind: "desk", id: d.id }, before: null, after: { id: d.id, name: d.name } } });
    return ok({ id: d.id, name: d.name, createdAt: d.createdAt.toISOString(), users: 0, agents: 0, accounts: 0 });
  });
}

/** Refuses a desk id that names no desk. Errors: 422 `unknown_desk` {deskId}. */
export async function assertDeskExists(db: DbOrTx, deskId: string): Promise<void> {
  if (!(await db.desk.findUnique({ where: { id: deskId }, select: { id: true } }))) {
    throw new DomainError("unknown_desk", `There is no desk "${deskId}"; create it first.`, { deskId });
  }
}
