import { PageSkeleton } from "@/components/page-skeleton";

/** A run while the server reads it and its account: the plan's and the side panel's places as grey blocks. */
export default function Loading() {
  return <PageSkeleton label="Loading the run…" kind="run" />;
}
