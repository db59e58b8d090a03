import { PageSkeleton } from "@/components/page-skeleton";

/** The queue while the server lists it: rows of grey blocks under the header, never "0 runs". */
export default function Loading() {
  return <PageSkeleton label="Loading the queue…" />;
}
