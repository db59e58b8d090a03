import type { ReactNode } from "react";
import { AppHeader } from "@/components/app-header";
import { requirePageViewer } from "@/lib/server/auth/page-access";
/**
 * The frame of the queue, a run and its audit trail: a signed-in viewer (else the sign-in page) and the header.
 * Checked here, above the segment's loading.tsx, so a refusal keeps its HTTP status (the page
 * checks again); the header stays while the page below loads.
 */
export default async function RunsLayout({ children }: { children: ReactNode }) {
  const viewer = await requirePageViewer();
  return (
    <>
      <AppHeader viewer={viewer} />
      {children}
    </>
  );
}
