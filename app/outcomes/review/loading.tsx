import { PageSkeleton } from "@/components/page-skeleton";

/** /outcomes/review while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading the runs to label…" />;
}
