import { test as setup, expect } from "@playwright/test";
import { signInAs, STORAGE, type Role } from "./helpers";

// Sign in once per role and store the session for the tests that use it.
for (const role of ["operator", "senior", "supervisor", "admin"] as Role[]) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await signInAs(page, role);
    await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
    await page.context().storageState({ path: STORAGE[role] });
  });
}
