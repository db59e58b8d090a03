import { NextResponse } from "next/server";
import { handle, readJson } from "@/lib/server/http";
import { requireRole, requireViewer } from "@/lib/server/session";
import { allowedToolsBodySchema, setAgentAllowedTools } from "@/lib/server/tool-catalog";

/** `PUT /api/admin/agents/{agentId}/allowed-tools` `{allowedTools}` → 200 `{agent: {id, allowedTools}}`; 400 unknown tools; 403; 404. */
export const PUT = handle(async (req: Request, ctx: { params: Promise<{ agentId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  await requireRole(viewer, ["admin"], "admin.set_allowed_tools");
  const { agentId } = await ctx.params;
  const body = await readJson(req, allowedToolsBodySchema);
  return NextResponse.json({ agent: await setAgentAllowedTools(viewer, agentId, body.allowedTools) });
});
