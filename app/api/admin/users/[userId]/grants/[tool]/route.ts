import { NextResponse } from "next/server";
import { grantInputSchema } from "@/lib/admin-schemas";
import { setGrant } from "@/lib/server/admin/admin";
import { handle, readJson } from "@/lib/server/http";
import { requireRole, requireViewer } from "@/lib/server/session";

/**
 * `PUT /api/admin/users/{userId}/grants/{tool}` `{canApprove, approveLimit, canAuthor, authorLimit}`
 * (ceilings `{minor, currency}` or null) → 200 `{grant}`. 400; 403 `forbidden`, `cross_origin`; 404.
 */
export const PUT = handle(async (req: Request, ctx: { params: Promise<{ userId: string; tool: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  await requireRole(viewer, ["admin"], "admin.set_grant"); // before reading the body
  const { userId, tool } = await ctx.params;
  const body = await readJson(req, grantInputSchema);
  return NextResponse.json({ grant: await setGrant(viewer, userId, tool, body) });
});
