import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { deskIdSchema } from "@/lib/desk/desks";
import { pageRefusal } from "@/lib/server/auth/page-access";
import { assertDeskExists } from "@/lib/server/auth/page-subjects";

/** An unknown desk is 404, decided here above the page's loading.tsx (app/admin/layout.tsx checked the role). */
export default async function DeskSignInLayout({ children, params }: { children: ReactNode; params: Promise<{ deskId: string }> }) {
  const { deskId } = await params;
  if (!deskIdSchema.safeParse(deskId).success) notFound();
  await assertDeskExists(deskId).catch(pageRefusal);
  return children;
}
