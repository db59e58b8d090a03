import { NextResponse } from "next/server";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";
import { listCatalogForAdmin } from "@/lib/server/tool-catalog";

/** `GET /api/admin/tools` → `{catalogVersion, imported: [tool], builtIn: [name]}`; 401; 403 unless admin. */
export const GET = handle(async (req: Request) => {
  const viewer = await requireViewer(req);
  return NextResponse.json(await listCatalogForAdmin(viewer));
});
