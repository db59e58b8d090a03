import { NextResponse } from "next/server";
import { updateUserSchema } from "@/lib/admin-schemas";
import { getUserDetail, updateUser } from "@/lib/server/admin/admin";
import { handle, readJson } from "@/lib/server/http";
import { requireRole, requireViewer } from "@/lib/server/session";

type Ctx = { params: Promise<{ userId: string }> };

/** `GET /api/admin/users/{userId}` → `{user, grants}` (a grant row per tool); 403; 404. */
export const GET = handle(async (req: Request, ctx: Ctx) => {
  const viewer = await requireViewer(req);
  const { userId } = await ctx.params;
  return NextResponse.json(await getUserDetail(viewer, userId));
});

/**
 * `PATCH /api/admin/users/{userId}` `{disabled?, role?}` → 200 `{user}`. Disabling ends the
 * person's sessions at once. 400; 403 `forbidden`, `cross_origin`; 404; 409 `last_admin`.
 */
export const PATCH = handle(async (req: Request, ctx: Ctx) => {
  const viewer = await requireViewer(req, { mutating: true });
  await requireRole(viewer, ["admin"], "admin.update_user"); // before reading the body
  const { userId } = await ctx.params;
  const body = await readJson(req, updateUserSchema);
  return NextResponse.json({ user: await updateUser(viewer, userId, body) });
});
