import { AppHeader } from "@/components/app-header";
import { ForbiddenNotice } from "@/components/forbidden-notice";
import { getViewer } from "@/lib/server/auth/session";

/** Every page's 403 (answered by `forbidden()` from lib/server/auth/page-access.ts), with the HTTP status 403. */
export default async function Forbidden() {
  const viewer = await getViewer().catch(() => null);
  return (
    <>
      {viewer && <AppHeader viewer={viewer} />}
      <ForbiddenNotice
        message={
          viewer
            ? `Your role (${viewer.role}) cannot open this page. Ask an administrator if your work needs it; the refusal is on the record.`
            : "Sign in with an account that may open this page."
        }
      />
    </>
  );
}
