import { PageSkeleton } from "@/components/page-skeleton";

/** /account/passkeys while the server reads it: grey blocks under the header. */
export default function Loading() {
  return <PageSkeleton label="Loading your passkeys…" />;
}
