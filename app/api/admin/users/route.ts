import { NextResponse } from "next/server";
import { createUserSchema } from "@/lib/admin-schemas";
import { createUser, listUsers } from "@/lib/server/admin/admin";
import { handle, readJson } from "@/lib/server/http";
import { requireRole, requireViewer } from "@/lib/server/session";

/** `GET /api/admin/users` → `{users}` (admin only; 401, 403 `forbidden`). */
export const GET = handle(async (req: Request) => {
  const viewer = await requireViewer(req);
  return NextResponse.json({ users: await listUsers(viewer) });
});

/**
 * `POST /api/admin/users` `{email, name, role, password}` → 201 `{user}`; 400 `bad_request`
 * {issues}; 403 `forbidden`, `cross_origin`; 409 `email_taken`.
 */
export const POST = handle(async (req: Request) => {
  const viewer = await requireViewer(req, { mutating: true });
  await requireRole(viewer, ["admin"], "admin.create_user"); // before reading the body
  const body = await readJson(req, createUserSchema);
  return NextResponse.json({ user: await createUser(viewer, body) }, { status: 201 });
});
