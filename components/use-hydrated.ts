"use client";

import { useSyncExternalStore } from "react";

/** No store to subscribe to: `useSyncExternalStore` only tells server render from client. */
export const noSubscription = () => () => {};

/**
 * False on the server render and until React has hydrated this component in the browser; true
 * after. A button that acts through JavaScript is disabled until then, so a press on a page that
 * is still loading is refused visibly instead of lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, () => true, () => false);
}
