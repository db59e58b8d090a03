/**
 * Light and dark mode for the states only a click or a key reaches: the shortcut list, the command
 * palette, the edit form, the risk callout and the decision bar stay axe-clean — colour contrast
 * included — in both schemes. Every page as it opens is checked in both schemes by
 * e2e/every-page.spec.ts.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createRun } from "./factory";
import { refundWhy, STORAGE } from "./helpers";

async function expectAxeClean(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`) }))).toEqual([]);
}

for (const scheme of ["light", "dark"] as const) {
  test.describe(`${scheme} mode`, () => {
    test.use({ colorScheme: scheme });

    test.describe("states reached by a key", () => {
      test.use({ storageState: STORAGE.senior });
      test("the shortcut list and the edit form are axe-clean", async ({ page }) => {
        // A run of its own that waits for approval (the first of the queue may have moved on meanwhile).
        const runId = await createRun(page.request, scheme === "light" ? "storage-74999" : "perishable-74998");
        await page.goto(`/runs/${runId}`);
        await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
        await page.keyboard.press("?");
        const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
        await expect(dialog).toBeVisible();
        await expectAxeClean(page);
        // Esc, then Ctrl+K at once: the palette opens even while the list's own close event is
        // still on its way (once a key pressed in that gap was lost), and lists this page's actions.
        await page.keyboard.press("Escape");
        await page.keyboard.press("Control+k");
        await expect(dialog).toHaveCount(0);
        const palette = page.getByRole("dialog", { name: "Command palette" });
        await expect(palette.getByRole("option", { name: /Approve what is on screen/ })).toBeVisible();
        await expectAxeClean(page);
        await page.keyboard.press("Escape");
        await expect(palette).toHaveCount(0);
        await page.getByRole("button", { name: "Edit plan" }).click();
        await expect(page.getByRole("form", { name: "Edit plan" })).toBeVisible();
        await expectAxeClean(page);
      });

      test("the risk callout, the decision bar and the At stake column are axe-clean", async ({ page, baseURL }) => {
        const runId = await createRun(page.request, scheme === "light" ? "customs-74995" : "damaged-75001"); // tasks whose contract names no accounts in scope
        const { run: r } = await (await page.request.get(`/api/runs/${runId}`)).json();
        const steps = r.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
        // a refund on another customer's invoice (in_74119 is Halvorsen Freight's)
        steps.push({ id: "xrefund", tool: "issue_refund", args: { invoiceId: "in_74119", amount: { minor: 10000, currency: "USD" }, reason: "Goodwill" }, ...refundWhy(r.ticketId, "in_74119") });
        const res = await page.request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: r.planVersion, steps }, headers: { origin: baseURL! } });
        expect(res.status(), await res.text()).toBe(201);
        await page.goto(`/runs/${runId}`);
        await expect(page.getByTestId("risk-callout")).toContainText("Refund to another customer's invoice · $100.00 · Halvorsen Freight");
        await expect(page.getByTestId("decision-bar")).toBeVisible();
        await expectAxeClean(page);
        await page.goto("/runs?sort=at_stake");
        await expect(page.getByTestId("risk-other-account").first()).toBeVisible();
        await expectAxeClean(page);
      });
    });
  });
}
