import { PageSkeleton } from "@/components/page-skeleton";

/** The desk's sign-in page while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading the identity providers…" kind="form" />;
}
