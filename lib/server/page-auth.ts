import { redirect } from "next/navigation";
import { getViewer, type Viewer } from "./session";

/** For server pages: the signed-in viewer, or a redirect to /sign-in (with `next`). */
export async function requirePageViewer(nextPath: string): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer) redirect(`/sign-in?next=${encodeURIComponent(nextPath)}`);
  return viewer;
}
