import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import "./globals.css";
import { Providers } from "@/components/providers";

export const metadata: Metadata = {
  title: { default: "Plandesk", template: "%s · Plandesk" },
  description: "Review, edit and approve the plans AI agents want to execute.",
};

/**
 * Every page renders per request: reading the request headers (the nonce proxy.ts set) makes it
 * dynamic, and Next.js puts that nonce on its scripts, which the page's CSP requires.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await headers();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
