import { NextResponse } from "next/server";
import { revokeApiKey } from "@/lib/server/admin/admin";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/** `POST /api/admin/agents/{agentId}/keys/{keyId}/revoke` → 200 `{apiKey}` (revoked at once); 403; 404. */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ agentId: string; keyId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { agentId, keyId } = await ctx.params;
  return NextResponse.json({ apiKey: await revokeApiKey(viewer, agentId, keyId) });
});
