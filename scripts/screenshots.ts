/**
 * Takes screenshots of the main pages against a running console (default http://localhost:3000)
 * into docs/ (README) or the folder given: `npx tsx scripts/screenshots.ts [baseUrl] [outDir]`.
 * It submits a fresh reference-case run through the agent API, edits it as the senior operator
 * (date moved four days, refund of 1,489.00 on in_74119 added) and captures the review screen;
 * then the queue (sorted by money at stake) and the run with its risk callout at 1440 and 390 px,
 * light and dark (`-dark`, `-phone`, `-phone-dark` file suffixes).
 */
import { chromium } from "@playwright/test";
import { buildDemoDesk } from "../lib/demo/desk-data";

async function main() {
  const base = process.argv[2] ?? "http://localhost:3000";
  const out = process.argv[3] ?? "docs";
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await page.screenshot({ path: `${out}/screenshot-sign-in.png` });
  await page.getByLabel("Email").fill(process.env.SHOT_USER ?? "senior@plandesk.test");
  await page.getByLabel("Password").fill("plandesk-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/runs/);
  await page.getByRole("link", { name: "#74991" }).first().waitFor();
  await page.screenshot({ path: `${out}/screenshot-queue.png`, fullPage: true });

  const auth = { authorization: "Bearer pd_demo_agent_key" };
  const steps = buildDemoDesk(new Date()).runs.find((r) => r.key === "ref-74991")!.steps;
  const task = await (await page.request.get(`${base}/api/v1/tasks/task_74991`, { headers: auth })).json();
  const created = await page.request.post(`${base}/api/v1/tasks/task_74991/runs`, { headers: auth, data: { taskRevision: task.task.revision, steps } });
  const runId = (await created.json()).run.id as string;
  await page.goto(`${base}/runs/${runId}`);
  await page.getByRole("heading", { name: /Ticket #74991/ }).waitFor();
  await page.screenshot({ path: `${out}/screenshot-run.png`, fullPage: true });

  await page.getByRole("button", { name: "Edit plan" }).click();
  const from = page.locator('[id="steps.1.args.window.from"]');
  const d = new Date(`${await from.inputValue()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 4);
  const later = d.toISOString().slice(0, 10);
  await from.fill(later);
  await page.locator('[id="steps.1.args.window.to"]').fill(later);
  await page.getByLabel("Add step").selectOption("issue_refund");
  await page.getByRole("button", { name: "Add step", exact: true }).click();
  await page.locator('[id="steps.3.args.invoiceId"]').fill("in_74119");
  await page.locator('[id="steps.3.args.amount"]').fill("1,489.00");
  await page.locator('[id="steps.3.args.reason"]').fill("Goodwill for the missed delivery window");
  await page.screenshot({ path: `${out}/screenshot-edit.png`, fullPage: true });
  await page.getByRole("button", { name: "Save edit" }).click();
  await page.getByRole("heading", { name: /Your edit changed/ }).waitFor();
  await page.waitForTimeout(6000); // let the save toast fade
  await page.screenshot({ path: `${out}/screenshot-review.png`, fullPage: true });

  // the same pages at desktop and phone width, light and dark, signed in as the same person
  const storageState = await context.storageState();
  for (const v of [
    { suffix: "", width: 1440, height: 900, scheme: "light" as const },
    { suffix: "-dark", width: 1440, height: 900, scheme: "dark" as const },
    { suffix: "-phone", width: 390, height: 844, scheme: "light" as const },
    { suffix: "-phone-dark", width: 390, height: 844, scheme: "dark" as const },
  ]) {
    const ctx = await browser.newContext({ viewport: { width: v.width, height: v.height }, colorScheme: v.scheme, storageState });
    const p = await ctx.newPage();
    await p.goto(`${base}/runs?sort=at_stake`);
    await p.getByRole("link", { name: "#74991" }).first().waitFor();
    await p.screenshot({ path: `${out}/screenshot-queue-at-stake${v.suffix}.png`, fullPage: true });
    await p.goto(`${base}/runs/${runId}`);
    await p.getByTestId("risk-callout").waitFor();
    await p.screenshot({ path: `${out}/screenshot-run-risk${v.suffix}.png`, fullPage: v.width > 400 });
    await ctx.close();
  }
  await browser.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
