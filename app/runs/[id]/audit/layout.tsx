import type { ReactNode } from "react";
import { assertAuditReader } from "@/lib/server/audit/run-audit";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";

/**
 * The audit trail is for operators and supervisors (403 otherwise, audited `denied` on the run's
 * trail): checked here, above the trail's loading.tsx, so the 403 keeps its status.
 */
export default async function AuditLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await requirePageViewer();
  await assertAuditReader(viewer, { action: "read_audit", runId: id }).catch(pageRefusal);
  return children;
}
