import { PageSkeleton } from "@/components/page-skeleton";

/** /reconciliation while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading the writes to reconcile…" />;
}
