import type { ReactNode } from "react";
import { AppHeader } from "@/components/app-header";
import { pagePath, requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

/**
 * Every admin page: admins only (403 otherwise, audited as "view <path>"), with the header.
 * Checked here, above the admin pages' loading.tsx, so the 403 keeps its status (each page
 * checks again).
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const viewer = await requirePageViewer();
  await requirePageRole(viewer, ["admin"], `view ${(await pagePath()).split("?")[0]}`);
  return (
    <>
      <AppHeader viewer={viewer} />
      {children}
    </>
  );
}
