import { test as setup, expect } from "@playwright/test";
import { signInAs, STORAGE, type Role } from "./helpers";

// Sign in once per role and store the session for the tests that use it.
for (const role of ["operator", "senior", "supervisor", "admin"] as Role[]) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await signInAs(page, role);
    // The first sign-ins of a fresh server hash passwords and render the queue cold: on a loaded
    // machine that takes longer than one expectation's default, so this waits for the queue up to
    // the test's own limit.
    await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible({ timeout: 50_000 });
    await page.context().storageState({ path: STORAGE[role] });
  });
}
