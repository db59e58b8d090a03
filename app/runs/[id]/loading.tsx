import { PageSkeleton } from "@/components/page-skeleton";

/** A run while the server renders it: the shape of the plan and the side panel, greyed. */
export default function Loading() {
  return <PageSkeleton kind="run" />;
}
