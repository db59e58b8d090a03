import { PageSkeleton } from "@/components/page-skeleton";

/** Any page while the server renders it: a skeleton, so a slow network never looks like an empty page. */
export default function Loading() {
  return <PageSkeleton />;
}
