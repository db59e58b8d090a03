import type { ReactNode } from "react";
import { AppHeader } from "@/components/app-header";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
/**
 * Desk rules are for supervisors and admins (403 otherwise, audited).
 * Checked here, above the segments' loading.tsx, so a refusal keeps its HTTP status (the pages
 * check again); the header stays while the page below loads.
 */
export default async function DeskRulesLayout({ children }: { children: ReactNode }) {
  const viewer = await requirePageViewer();
  await requirePageRole(viewer, ["supervisor", "admin"], "view /desk-rules");
  return (
    <>
      <AppHeader viewer={viewer} />
      {children}
    </>
  );
}
