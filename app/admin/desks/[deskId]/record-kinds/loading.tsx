import { PageSkeleton } from "@/components/page-skeleton";

/** An admin page while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading the record kinds…" kind="form" />;
}
