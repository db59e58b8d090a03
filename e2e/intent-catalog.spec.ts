import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { STORAGE } from "./helpers";

/*
 * An admin edits a desk's intent catalog in the console (docs/design.md, the task contract): a bad
 * name is a correctable error on its field and saves nothing; a good intent is saved, audited and
 * offered to the desk's task contracts. The retail desk is used: no other spec relies on its
 * catalog, and the intent added here is new.
 */

test.describe("the intent catalog editor", () => {
  test.use({ storageState: STORAGE.admin });

  test("an admin adds an intent to the retail desk: a bad name is refused on its field, the fixed one is saved and shown again", async ({ page }) => {
    await page.goto("/admin/desks");
    await page.getByRole("link", { name: /Edit the intent catalog of .*Retail/i }).click();
    await expect(page.getByRole("heading", { name: /^Intents of .*\(\d+\)$/ })).toBeVisible();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    const before = await page.getByTestId(/^intent-\d+$/).count();
    const n = before + 1;
    const name = `damage_claim_${Date.now().toString(36)}`;

    await page.getByRole("button", { name: "Add intent" }).click();
    await page.getByLabel(`Intent ${n} name`).fill("Damage Claim");
    await page.getByLabel(`Intent ${n} label`).fill("Damage claim");
    await page.getByLabel(`Intent ${n} permits issue_refund`).check();
    await page.getByLabel("Why it changes").fill("Retail handles damage claims (e2e)");
    await page.getByRole("button", { name: "Save catalog" }).click();
    await expect(page.getByTestId(`intent-${n - 1}`).getByRole("alert")).toHaveText("An intent is a snake_case name such as delivery_exception");
    await expect(page.getByLabel(`Intent ${n} name`)).toHaveAttribute("aria-invalid", "true");

    // Corrected, it saves; what was typed is still there.
    await expect(page.getByLabel(`Intent ${n} label`)).toHaveValue("Damage claim");
    await page.getByLabel(`Intent ${n} name`).fill(name);
    await page.getByRole("button", { name: "Save catalog" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved the intent catalog" })).toBeVisible();
    await page.reload();
    await expect(page.getByLabel(`Intent ${n} name`)).toHaveValue(name);
    await expect(page.getByLabel(`Intent ${n} permits issue_refund`)).toBeChecked();
    await expect(page.getByLabel(`Intent ${n} permits send_reply`)).not.toBeChecked();

    // The API answers the same catalog.
    const api = await page.request.get("/api/admin/desks/retail/intents");
    expect(api.status()).toBe(200);
    const catalog = (await api.json()) as { intents: { name: string; permittedTools: string[] }[] };
    expect(catalog.intents.find((i) => i.name === name)?.permittedTools).toEqual(["issue_refund"]);
  });

  test("a desk that does not exist is the app's 404", async ({ page }) => {
    await page.goto("/admin/desks/no-such-desk/intents");
    await expect(page.getByRole("heading", { name: /not found/i })).toBeVisible();
  });
});
