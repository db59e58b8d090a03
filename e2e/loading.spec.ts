import { test, expect, type Page, type Route } from "@playwright/test";
import { STORAGE } from "./helpers";

// Route-level loading: while the server renders a page the app frame stays (the header) and the
// page's skeleton stands where it will be, announced as a status in words; and a loading boundary
// never turns a refusal into a 200: 404 and 403 keep their HTTP statuses, decided in the layouts
// above the boundaries (lib/server/auth/page-access.ts).
//
// Deterministic, no timing: the router shows a loading state it has prefetched, so the test
// serves the link's prefetch itself (fetched whole from the server, then fulfilled) and knows it
// arrived; it then holds the navigation's RSC request until the skeleton has been seen, and only
// then lets it through. Ticket 75010 is used by no other spec.

const AGENT = { authorization: "Bearer pd_demo_agent_key" };

/** Serves `path`'s router prefetches whole and holds its navigation (RSC) request until released. */
async function holdNavigation(page: Page, path: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let prefetched!: () => void;
  const prefetchedOnce = new Promise<void>((r) => (prefetched = r));
  let held!: () => void;
  const heldOnce = new Promise<void>((r) => (held = r));
  await page.route(
    (url) => url.pathname === path,
    async (route: Route) => {
      const h = route.request().headers();
      if (!h.rsc) return route.continue(); // a full page load is not held
      if (h["next-router-prefetch"]) {
        const res = await route.fetch();
        await route.fulfill({ response: res, body: await res.body() });
        if (!h["next-router-segment-prefetch"]) prefetched(); // the one that carries the loading state
        return;
      }
      held();
      await released;
      await route.continue();
    },
  );
  return { release, prefetchedOnce, heldOnce };
}

test.describe("route-level loading", () => {
  test.use({ storageState: STORAGE.senior });

  test("opening a run while the server is slow shows the run's skeleton under the header, then the run", async ({ page }) => {
    const task = await (await page.request.get("/api/v1/tasks/task_75010", { headers: AGENT })).json();
    const created = await page.request.post("/api/v1/tasks/task_75010/runs", {
      headers: AGENT,
      data: { taskRevision: task.task.revision, steps: [{ id: "note", tool: "add_ticket_note", args: { ticketId: "75010", note: "Checked the late fee on in_75003 against the payment date." } }] },
    });
    expect(created.status(), await created.text()).toBe(201);
    const runId = (await created.json()).run.id as string;
    const path = `/runs/${runId}`;
    const nav = await holdNavigation(page, path);
    await page.goto("/runs?status=all");
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const link = page.locator(`a[href="${path}"]`).first();
    await link.hover(); // in view and hovered: the router prefetches it
    await nav.prefetchedOnce;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))); // the router has read it
    await link.click();
    await nav.heldOnce;

    const skeleton = page.getByTestId("page-skeleton");
    await expect(skeleton).toBeVisible();
    await expect(skeleton).toHaveAttribute("aria-busy", "true");
    await expect(skeleton).toHaveAttribute("data-kind", "run");
    await expect(skeleton.getByRole("status")).toHaveText("Loading the run…");
    // the frame stays: header, its navigation, the signed-in person
    await expect(page.getByRole("banner").getByRole("link", { name: "Plandesk" })).toBeVisible();
    await expect(page.getByRole("banner")).toContainText("Sam Senior");
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(0); // no stale queue title, no empty run

    nav.release();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #75010");
    await expect(skeleton).toHaveCount(0);
    await expect(page.getByRole("banner").getByRole("link", { name: "Plandesk" })).toBeVisible();
  });
});

test.describe("statuses behind the loading boundaries: operator", () => {
  test.use({ storageState: STORAGE.operator });

  test("an unknown run (and its audit trail) answers 404, a supervisor's or admin's page 403, inside the frame", async ({ page }) => {
    for (const url of ["/runs/run_does_not_exist", "/runs/run_does_not_exist/audit"]) {
      const res = await page.request.get(url);
      expect(res.status(), url).toBe(404);
    }
    for (const url of ["/insights", "/reconciliation", "/escalations", "/denials", "/admin/users", "/admin/users/usr_operator", "/admin/gate-policy", "/admin/desks/freight/intents"]) {
      const res = await page.request.get(url);
      expect(res.status(), url).toBe(403);
    }
    for (const url of ["/runs", "/notifications", `/runs/${(await (await page.request.get("/api/runs")).json()).runs[0].id}`]) {
      expect((await page.request.get(url)).status(), url).toBe(200);
    }
    // in the browser: the not-found page inside the app frame
    await page.goto("/runs/run_does_not_exist/audit");
    await expect(page.getByRole("heading", { name: "Run not found" })).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: "Plandesk" })).toBeVisible();
    await page.goto("/insights");
    await expect(page.getByTestId("forbidden")).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: "Plandesk" })).toBeVisible();
  });
});

test.describe("statuses behind the loading boundaries: admin", () => {
  test.use({ storageState: STORAGE.admin });

  test("an unknown person or desk answers 404; a run's audit trail 403; the admin pages 200", async ({ page }) => {
    expect((await page.request.get("/admin/users/usr_does_not_exist")).status()).toBe(404);
    expect((await page.request.get("/admin/desks/no-such-desk/intents")).status()).toBe(404);
    const runId = (await (await page.request.get("/api/runs")).json()).runs[0].id as string;
    expect((await page.request.get(`/runs/${runId}/audit`)).status()).toBe(403);
    for (const url of ["/admin/users", "/admin/users/usr_operator", "/admin/agents", "/admin/tools", "/admin/gate-policy", "/admin/webhooks", "/admin/integrations", "/admin/desks", "/admin/desks/freight/intents", "/denials"]) {
      expect((await page.request.get(url)).status(), url).toBe(200);
    }
    await page.goto("/admin/users/usr_does_not_exist");
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: "Plandesk" })).toBeVisible();
  });
});

test.describe("statuses behind the loading boundaries: signed out with a stale session", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("a page behind a layout's check redirects to sign-in with the page as next (307, not a streamed redirect)", async ({ page, baseURL }) => {
    const host = new URL(baseURL!).hostname;
    await page.context().addCookies([{ name: "better-auth.session_token", value: "stale.session", domain: host, path: "/" }]);
    const res = await page.request.get("/runs/run_does_not_exist/audit?x=1", { maxRedirects: 0 });
    expect(res.status()).toBe(307);
    expect(res.headers().location).toMatch(/\/sign-in\?next=%2Fruns%2Frun_does_not_exist%2Faudit%3Fx%3D1$/);
  });
});
