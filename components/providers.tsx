"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { KeyboardShortcuts } from "./keyboard-shortcuts";
import { Toaster } from "./toaster";
import { NavigationProgress } from "./navigation-progress";

/** Client-side providers: TanStack Query, the keyboard layer (shortcuts, skip link), the toast region and the navigation bar. */
export function Providers({ children }: { children: ReactNode }) {
  // Says React has taken over the page (`html[data-hydrated]`): what a test waits for before it
  // clicks, instead of a quiet network, which a page with a live stream never has.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "1";
  }, []);
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: true } } }),
  );
  return (
    <QueryClientProvider client={client}>
      <KeyboardShortcuts>{children}</KeyboardShortcuts>
      <Toaster />
      <NavigationProgress />
    </QueryClientProvider>
  );
}
