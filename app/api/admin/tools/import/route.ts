import { NextResponse } from "next/server";
import { handle, readJson } from "@/lib/server/http";
import { requireRole, requireViewer } from "@/lib/server/session";
import { importToolsAsAdmin, importToolsBodySchema } from "@/lib/server/tool-catalog";

/**
 * `POST /api/admin/tools/import` `{source: "mcp_tools_list" | "openai_functions", label, payload}` or
 * `{source: "mcp_server", server}` → 201 `{catalogVersion, created, added, changed, unchanged, problems}`;
 * 400 `bad_request`; 403 `forbidden`, `cross_origin`; 422 `validation_failed` {problems}.
 */
export const POST = handle(async (req: Request) => {
  const viewer = await requireViewer(req, { mutating: true });
  await requireRole(viewer, ["admin"], "admin.import_tools"); // before reading the body
  const body = await readJson(req, importToolsBodySchema);
  return NextResponse.json(await importToolsAsAdmin(viewer, body), { status: 201 });
});
