import { DEFAULT_DESK } from "../../desk/desks";
import { hashPassword } from "better-auth/crypto";
import { nanoid } from "nanoid";
import { createUserSchema, type CreateUserInput } from "../../people/admin-schemas";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { inTransaction, ok, type DbOrTx, type Tx } from "../db/transaction";

/**
 * Creating people outside a signed-in admin's request: `npm run admin:create` (the first admin
 * of a production desk, or recovery). Kept apart from lib/server/admin/admin.ts so the command line
 * needs neither better-auth's server nor a session secret — only its password hashing.
 */

/** 409 `email_taken` for `email`. */
export const emailTaken = (email: string) => new DomainError("email_taken", `A user with the email ${email} already exists.`, { field: "email" });

/**
 * Refuses an email that already belongs to someone (409 `email_taken`), read on `db` (inside the
 * creating transaction: a concurrent creation of the same email makes the insert's unique key
 * fire, `inTransaction` runs the body again, and this check then refuses it).
 */
export async function assertEmailFree(email: string, db: DbOrTx = prisma): Promise<void> {
  if (await db.user.findUnique({ where: { email }, select: { id: true } })) throw emailTaken(email);
}

/**
 * Inserts a person with a better-auth credential account (providerId "credential", the password
 * hashed by better-auth's own `hashPassword`), like the demo seed. No grants.
 */
export async function insertUserRecord<I extends Prisma.UserInclude>(tx: Tx, input: CreateUserInput, include: I) {
  const id = `usr_${nanoid(12)}`;
  const password = await hashPassword(input.password);
  return tx.user.create({
    data: {
      id,
      email: input.email,
      name: input.name,
      role: input.role,
      desk: input.desk ?? DEFAULT_DESK,
      emailVerified: true,
      authAccounts: { create: { id: `${id}_cred`, accountId: id, providerId: "credential", password } },
    },
    include,
  });
}

/**
 * Creates an admin without an acting admin. Audited `admin_change` {what: "user.create",
 * via: "cli"} by the system; the password is never recorded. Errors: 400 `bad_request` {issues}
 * (email, name, password of 10–128 characters); 409 `email_taken`.
 */
export async function bootstrapAdmin(raw: { email: string; name: string; password: string }): Promise<{ id: string; email: string; name: string }> {
  const input = parseOrBadRequest(createUserSchema, { ...raw, role: "admin" });
  return inTransaction(async (tx) => {
    await assertEmailFree(input.email, tx);
    const u = await insertUserRecord(tx, input, {});
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "system" },
      data: { what: "user.create", target: { kind: "user", id: u.id }, before: null, after: { email: u.email, name: u.name, role: "admin", disabled: false }, via: "cli" },
    });
    return ok({ id: u.id, email: u.email, name: u.name });
  });
}
