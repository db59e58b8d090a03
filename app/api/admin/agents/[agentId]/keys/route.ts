import { NextResponse } from "next/server";
import { createApiKey } from "@/lib/server/admin/admin";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/**
 * `POST /api/admin/agents/{agentId}/keys` → 201 `{apiKey: {id, prefix, createdAt, revokedAt}, key}`.
 * `key` is shown this once; only its hash is stored. 403 `forbidden`, `cross_origin`; 404.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ agentId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { agentId } = await ctx.params;
  return NextResponse.json(await createApiKey(viewer, agentId), { status: 201, headers: { "cache-control": "no-store" } });
});
