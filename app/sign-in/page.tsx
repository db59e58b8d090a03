import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/sign-in-form";
import { getViewer } from "@/lib/server/auth/session";
import { serverConfig } from "@/lib/server/config/config";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  const safeNext = next && next.startsWith("/") && !next.startsWith("//") ? next : "/runs";
  if (await getViewer()) redirect(safeNext);
  const demo = serverConfig().demo;
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-6">
      <h1 className="text-2xl font-semibold">Sign in to Plandesk</h1>
      <p className="mt-1 text-sm text-slate-600">Review, edit and approve the plans agents want to execute.</p>
      <SignInForm next={safeNext} />
      {demo && (
        <section aria-labelledby="demo-h" className="mt-8 rounded-md border border-amber-300 bg-amber-50 p-4 text-sm">
          <h2 id="demo-h" className="font-medium">Demo desk</h2>
          <p className="mt-1">
            Password <code className="font-mono">plandesk-demo</code> for <code className="font-mono">operator@plandesk.test</code>,{" "}
            <code className="font-mono">senior@plandesk.test</code>, <code className="font-mono">supervisor@plandesk.test</code>,{" "}
            <code className="font-mono">admin@plandesk.test</code>.
          </p>
        </section>
      )}
    </main>
  );
}
