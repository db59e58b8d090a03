import type { ReactNode } from "react";
import { AppHeader } from "@/components/app-header";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
/**
 * Reconciliation is for supervisors (403 otherwise, audited).
 * Checked here, above the segment's loading.tsx, so a refusal keeps its HTTP status (the page
 * checks again); the header stays while the page below loads.
 */
export default async function ReconciliationLayout({ children }: { children: ReactNode }) {
  const viewer = await requirePageViewer();
  await requirePageRole(viewer, ["supervisor"], "view reconciliation");
  return (
    <>
      <AppHeader viewer={viewer} />
      {children}
    </>
  );
}
