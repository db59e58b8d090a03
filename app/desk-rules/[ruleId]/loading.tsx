import { PageSkeleton } from "@/components/page-skeleton";

/** A desk-rules page while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading the desk rule…" />;
}
