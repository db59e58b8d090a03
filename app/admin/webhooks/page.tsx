import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { WebhooksAdmin } from "@/components/admin/webhooks-admin";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
import { listWebhookFailures } from "@/lib/server/admin/admin-webhooks";
import { webhookConfig } from "@/lib/server/webhooks/webhook-config";

export const metadata: Metadata = { title: "Webhooks · Admin" };
export const dynamic = "force-dynamic";

/** Admins' view of webhook deliveries that failed, keyset-paginated, with retry-now. */
export default async function AdminWebhooksPage() {
  const viewer = await requirePageViewer("/admin/webhooks");
  await requirePageRole(viewer, ["admin"], "view /admin/webhooks");
  const config = webhookConfig();
  return (
    <>
      <main className="mx-auto max-w-7xl px-6 py-6">
        <h1 className="text-xl font-semibold">Admin</h1>
        <p className="mt-1 text-sm text-slate-600">
          Escalations, expiries and approval hand-offs are sent to {config ? <code>{config.url}</code> : "no webhook (set PLANDESK_WEBHOOK_URL and PLANDESK_WEBHOOK_SECRET)"} as
          Slack-compatible JSON signed with <code>X-Plandesk-Signature</code>. A failed delivery is retried with growing waits; after the last attempt it is listed here until it is sent again.
        </p>
        <AdminNav current="webhooks" />
        <WebhooksAdmin initialPage={await listWebhookFailures(viewer)} />
      </main>
    </>
  );
}
