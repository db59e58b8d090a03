import type { Page } from "@playwright/test";

export type Role = "operator" | "senior" | "supervisor" | "admin";

/** Stored sessions, written by auth.setup.ts. */
export const STORAGE: Record<Role, string> = {
  operator: "test-results/.auth/operator.json",
  senior: "test-results/.auth/senior.json",
  supervisor: "test-results/.auth/supervisor.json",
  admin: "test-results/.auth/admin.json",
};

/** Signs in through the sign-in page with the demo password. */
export async function signInAs(page: Page, role: Role, password = "plandesk-demo") {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(`${role}@plandesk.test`);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}
