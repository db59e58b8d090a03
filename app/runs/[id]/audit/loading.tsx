import { PageSkeleton } from "@/components/page-skeleton";

/** The audit trail while the server reads its events. */
export default function Loading() {
  return <PageSkeleton label="Loading the audit trail…" width="max-w-5xl" />;
}
