import type { ReactNode } from "react";
import { getDeskRule } from "@/lib/server/desk-rules/list-desk-rules";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";
/** An unknown rule is a 404, decided here above the page's loading.tsx so the status holds. */
export default async function DeskRuleLayout({ children, params }: { children: ReactNode; params: Promise<{ ruleId: string }> }) {
  const viewer = await requirePageViewer();
  const { ruleId } = await params;
  try {
    await getDeskRule(viewer, ruleId);
  } catch (e) {
    pageRefusal(e);
  }
  return <>{children}</>;
}
