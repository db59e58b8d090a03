/**
 * Takes screenshots of the main pages against a running console (default http://localhost:3000)
 * into docs/ (README) or the folder given: `npx tsx scripts/screenshots.ts [baseUrl] [outDir]`.
 */
import { chromium } from "@playwright/test";

async function main() {
  const base = process.argv[2] ?? "http://localhost:3000";
  const out = process.argv[3] ?? "docs";
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(`${base}/sign-in`);
  await page.screenshot({ path: `${out}/screenshot-sign-in.png` });
  await page.getByLabel("Email").fill(process.env.SHOT_USER ?? "senior@plandesk.test");
  await page.getByLabel("Password").fill("plandesk-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/runs/);
  await page.getByRole("link", { name: "#74991" }).waitFor();
  await page.screenshot({ path: `${out}/screenshot-queue.png`, fullPage: true });
  await page.getByRole("link", { name: "#74991" }).click();
  await page.waitForURL(/\/runs\/run_/);
  await page.getByRole("heading", { name: /Ticket #74991/ }).waitFor();
  await page.screenshot({ path: `${out}/screenshot-run.png`, fullPage: true });
  await browser.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
