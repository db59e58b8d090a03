import { NextResponse } from "next/server";
import { createAgentSchema } from "@/lib/admin-schemas";
import { createAgent, listAgents } from "@/lib/server/admin/admin";
import { handle, readJson } from "@/lib/server/http";
import { requireRole, requireViewer } from "@/lib/server/session";

/** `GET /api/admin/agents` → `{agents}` with allowlists and keys (prefixes only); 403. */
export const GET = handle(async (req: Request) => {
  const viewer = await requireViewer(req);
  return NextResponse.json({ agents: await listAgents(viewer) });
});

/** `POST /api/admin/agents` `{name, allowedTools}` → 201 `{agent}`; 400; 403 `forbidden`, `cross_origin`. */
export const POST = handle(async (req: Request) => {
  const viewer = await requireViewer(req, { mutating: true });
  await requireRole(viewer, ["admin"], "admin.create_agent"); // before reading the body
  const body = await readJson(req, createAgentSchema);
  return NextResponse.json({ agent: await createAgent(viewer, body) }, { status: 201 });
});
