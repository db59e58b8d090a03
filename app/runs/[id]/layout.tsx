import type { ReactNode } from "react";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";
import { assertRunInScope } from "@/lib/server/auth/page-subjects";

/**
 * A run's pages (the run, its audit trail): an unknown run, or another desk's, is 404
 * (app/runs/not-found.tsx, inside the header's frame). Checked here, above the run's and the
 * audit trail's loading.tsx, so the status is decided before the skeleton streams.
 */
export default async function RunLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await requirePageViewer();
  await assertRunInScope(id, viewer).catch(pageRefusal);
  return children;
}
