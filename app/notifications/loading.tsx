import { PageSkeleton } from "@/components/page-skeleton";

/** The notifications while the server reads them. */
export default function Loading() {
  return <PageSkeleton label="Loading your notifications…" width="max-w-3xl" />;
}
