import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdminNav } from "@/components/admin/admin-nav";
import { OidcProvidersAdmin } from "@/components/admin/oidc-providers-admin";
import { DomainError } from "@/lib/errors/domain-error";
import { deskIdSchema } from "@/lib/desk/desks";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
import { listOidcProviders } from "@/lib/server/sso/oidc-providers";
import { catalogToolsForAdmin } from "@/lib/server/tools/imported-tools";

export const dynamic = "force-dynamic";

/** Tab title: "Sign-in of <desk> · Admin". */
export async function generateMetadata({ params }: { params: Promise<{ deskId: string }> }): Promise<Metadata> {
  return { title: `Sign-in of ${(await params).deskId} · Admin` };
}

/**
 * `/admin/desks/{deskId}/sign-in`: the desk's OpenID Connect identity providers (never their client
 * secrets), the form that registers one (its grants table offers the current catalog's tools) and
 * the button that disables one, admins only; an unknown desk is the app's 404. Reads and writes through the admin API (lib/server/sso/oidc-providers.ts).
 */
export default async function DeskSignInPage({ params }: { params: Promise<{ deskId: string }> }) {
  const { deskId } = await params;
  const viewer = await requirePageViewer(`/admin/desks/${encodeURIComponent(deskId)}/sign-in`);
  await requirePageRole(viewer, ["admin"], "view /admin/desks/[deskId]/sign-in");
  if (!deskIdSchema.safeParse(deskId).success) notFound();
  const { providers } = await listOidcProviders(viewer, deskId).catch((e: unknown) => {
    if (e instanceof DomainError && e.code === "not_found") notFound();
    throw e;
  });
  return (
    <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
      <h1 className="text-xl font-semibold">Admin</h1>
      <p className="mt-1 text-sm text-slate-600">
        <Link href="/admin/desks" className="text-blue-700 underline">
          Desks
        </Link>{" "}
        › {deskId} › sign-in. Every change is audited.
      </p>
      <AdminNav current="desks" />
      <OidcProvidersAdmin deskId={deskId} initialProviders={providers} tools={(await catalogToolsForAdmin(viewer)).tools} />
    </main>
  );
}
