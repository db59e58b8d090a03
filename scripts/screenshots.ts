/**
 * Takes screenshots of the main pages against a running console (default http://localhost:3000)
 * into docs/ (README.md shows them) or the folder given: `npx tsx scripts/screenshots.ts [baseUrl] [outDir]`.
 * It submits a fresh reference-case run through the agent API, edits it as the senior operator
 * (date moved four days, refund of 1,489.00 on in_74119 added) and captures the review screen;
 * then the queue (sorted by money at stake) and the run with its risk callout at 1440 and 390 px,
 * light and dark (`-dark`, `-phone`, `-phone-dark` file suffixes); and the review of an edit at
 * 390 px (`screenshot-review-phone.png`: a refund's amount and the reply that names it changed).
 * Run it on a freshly seeded desk (`npm run db:reset`): the queue shot expects #74991 waiting.
 */
import { chromium, type Page } from "@playwright/test";
import { buildDemoDesk } from "../lib/demo/desk-data";

/**
 * The whole page as one image with the sticky decision bar where it belongs, at the bottom: the
 * viewport is stretched to the page's height for the shot (Playwright's fullPage keeps sticky
 * elements at the first viewport's bottom, over the middle of the page), then restored.
 */
async function shootWhole(page: Page, path: string) {
  const size = page.viewportSize()!;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const grown = await page.evaluate(() => document.documentElement.scrollHeight);
  if (grown > height) await page.setViewportSize({ width: size.width, height: grown });
  await page.screenshot({ path });
  await page.setViewportSize(size);
}

/** Waits until the run page's live stream is up, so no "Live updates paused" line is in the shot. */
async function liveUp(page: Page) {
  await page.getByText("Live updates paused").waitFor({ state: "hidden", timeout: 15_000 }).catch(() => {});
}

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
  await liveUp(page);
  await shootWhole(page, `${out}/screenshot-run.png`);

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
  await shootWhole(page, `${out}/screenshot-edit.png`);
  await page.getByRole("button", { name: "Save edit" }).click();
  await page.getByRole("heading", { name: /Your edit changed/ }).waitFor();
  await page.waitForTimeout(6000); // let the save toast fade
  await shootWhole(page, `${out}/screenshot-review.png`);

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
    await shootWhole(p, `${out}/screenshot-queue-at-stake${v.suffix}.png`);
    await p.goto(`${base}/runs/${runId}`);
    await p.getByTestId("risk-callout").waitFor();
    await liveUp(p);
    if (v.width > 400) await shootWhole(p, `${out}/screenshot-run-risk${v.suffix}.png`);
    else await p.screenshot({ path: `${out}/screenshot-run-risk${v.suffix}.png` }); // the first screen: callout and decision bar
    await ctx.close();
  }
  // after the queue shots, which show the desk as seeded
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState });
  await reviewOnPhone(await phone.newPage(), base, `${out}/screenshot-review-phone.png`);
  await phone.close();
  await browser.close();
}

/**
 * The review at 390 px: a fresh run of ticket #75015 (a $220.00 refund, the reply that names it, a
 * note) edited to refund $200.00 with the reply saying so; the whole review after saving.
 */
async function reviewOnPhone(p: Page, base: string, path: string) {
  const auth = { authorization: "Bearer pd_demo_agent_key" };
  const task = await (await p.request.get(`${base}/api/v1/tasks/task_75015`, { headers: auth })).json();
  const res = await p.request.post(`${base}/api/v1/tasks/task_75015/runs`, {
    headers: auth,
    data: {
      taskRevision: task.task.revision,
      steps: [
        { id: "refund", tool: "issue_refund", args: { invoiceId: "in_74201", amount: { minor: 22000, currency: "USD" }, reason: "Reefer plug-in fee charged although the unit was never plugged in" }, title: "Refund the reefer plug-in fee", evidence: [{ recordType: "invoice", recordId: "in_74201" }], risk: "Money leaves the company", stopCondition: "The fee was waived meanwhile" },
        { id: "reply", tool: "send_reply", args: { ticketId: "75015", body: "We have refunded the reefer plug-in fee of $220.00 on invoice in_74201; it will show on your account within five working days." } },
        { id: "note", tool: "add_ticket_note", args: { ticketId: "75015", note: "Refund of REEFER_PLUGIN on in_74201 after checking the temperature log." } },
      ],
    },
  });
  if (res.status() !== 201) throw new Error(`reviewOnPhone: ${res.status()} ${await res.text()}`);
  const id = (await res.json()).run.id as string;
  await p.goto(`${base}/runs/${id}`);
  await p.getByRole("button", { name: "Edit plan" }).click();
  await p.locator('[id="steps.0.args.amount"]').fill("200,00");
  await p.locator('[id="steps.1.args.body"]').fill("We have refunded $200.00 of the reefer plug-in fee on invoice in_74201; it will show on your account within five working days.");
  await p.getByRole("button", { name: "Save edit" }).click();
  await p.getByRole("region", { name: /Your edit changed/ }).waitFor();
  await p.waitForTimeout(6000); // let the save toast fade
  await shootWhole(p, path);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
