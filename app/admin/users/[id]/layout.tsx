import type { ReactNode } from "react";
import { pageRefusal } from "@/lib/server/auth/page-access";
import { assertUserExists } from "@/lib/server/auth/page-subjects";

/** An unknown person is 404, decided here above the page's loading.tsx (app/admin/layout.tsx checked the role). */
export default async function AdminUserLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  await assertUserExists((await params).id).catch(pageRefusal);
  return children;
}
