import { PageSkeleton } from "@/components/page-skeleton";

/** /admin/changes while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading the admin changes…" />;
}
