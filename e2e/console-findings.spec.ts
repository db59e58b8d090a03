import AxeBuilder from "@axe-core/playwright";
import { test, expect, type Page } from "@playwright/test";
import { openTaskWithPlan, STORAGE } from "./helpers";

/*
 * Five smaller findings of an audit of the operator console, each as an operator meets it:
 * what an agent or a customer wrote (a 300-character token, a long URL) never widens the run page,
 * at 390 or at 1366 px, in the card, the task, the review, the diff and the decision panel; tabbing
 * through a run on a phone never leaves the focus under the sticky decision bar (WCAG 2.4.11);
 * the queue's warnings cell reads "1 warning" on its own; the desk-rule form marks its required
 * fields and takes the focus to the first refused one; insights put the edit rate beside the
 * edits of the same decided runs.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
const TOKEN = "A".repeat(300);
const URL_LONG = `https://tracking.example.com/shipments/sh_5650/${"segment-".repeat(30)}end?ref=${"x".repeat(120)}`;
/** Text nodes holding what the agent or the customer wrote (the token, the URL, the long title). */
const LONG_TEXT = /AAAAAAAAAA|BBBBBBBBBB|segment-segment|xxxxxxxxxx/;

/** A fresh task whose customer message and whose reply (body, title, risk, stop condition) hold a 300-character token and a long URL. */
async function longTextRun(page: Page, label: string): Promise<string> {
  const ticketId = `e2e-long-${label}-${Date.now()}`;
  const body = `Here is your reference ${TOKEN} and the link: ${URL_LONG}`;
  const { runId } = await openTaskWithPlan(
    page.request,
    { ticketId, accountId: "acc_rhine", subject: "Tracking link does not open", parts: [{ source: "customer_message", text: `You wrote "${body}" but the link does not open.` }] },
    [
      {
        id: "reply",
        tool: "send_reply",
        title: `Send the reference ${"B".repeat(150)}`,
        risk: `The link ${URL_LONG} may still not open`,
        stopCondition: `The customer confirms ${TOKEN}`,
        args: { ticketId, body },
        provenance: { body: { kind: "user_literal", quote: body } },
      },
    ],
  );
  return runId;
}

/** The page's sideways overflow (0 when it fits) and, when it does not, what sticks out. */
async function overflow(page: Page): Promise<{ px: number; wide: string[] }> {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    const vw = root.clientWidth;
    const wide = [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().right > vw + 1)
      .slice(-6)
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)} → ${Math.round(el.getBoundingClientRect().right)} px`);
    return { px: root.scrollWidth - vw, wide };
  });
}

/** Every element showing the long text breaks it anywhere (it may wrap), and none reaches past the viewport. */
async function expectLongTextWraps(page: Page, what: string) {
  const { px, wide } = await overflow(page);
  expect(px, `${what}: the page is ${px} px wider than the viewport:\n${wide.join("\n")}`).toBe(0);
  const stiff = await page.evaluate((source) => {
    const re = new RegExp(source);
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const el = (walker.currentNode as Text).parentElement!;
      if (!re.test((walker.currentNode as Text).data) || el.getClientRects().length === 0 || el.closest(".sr-only, textarea")) continue;
      const cs = getComputedStyle(el);
      const wraps = cs.overflowWrap === "anywhere" || cs.overflowWrap === "break-word" || cs.wordBreak === "break-all";
      if (!wraps || el.getBoundingClientRect().right > document.documentElement.clientWidth + 1) out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 50)} (overflow-wrap: ${cs.overflowWrap})`);
    }
    return out;
  }, LONG_TEXT.source);
  expect(stiff, `${what}: long text that does not wrap:\n${stiff.join("\n")}`).toEqual([]);
}

test.describe("what an agent or a customer wrote never widens the run page", () => {
  test.use({ storageState: STORAGE.senior });

  test("a 300-character token and a long URL wrap in the card, the task, the edit, the review, the diff and the decision panel, at 390 and 1366 px", async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const runId = await longTextRun(page, `wrap-${testInfo.workerIndex}`);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto(`/runs/${runId}`);
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      await expect(page.getByRole("list", { name: "Plan steps" })).toContainText(TOKEN.slice(0, 40));
      await expectLongTextWraps(page, `the run at ${viewport.width} px`);
      // … while the account's own short identifiers stay whole (in_74310, not "in_7431" over "0")
      const idLines = await page.evaluate(() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector('section[aria-labelledby="acct-h"] td')!);
        return range.getClientRects().length;
      });
      expect(idLines, `the first invoice id at ${viewport.width} px takes one line`).toBe(1);
      await page.screenshot({ path: testInfo.outputPath(`long-text-run-${viewport.width}.png`), fullPage: true });
    }

    // The decision panel: the reject form the bar opens.
    await page.getByTestId("decision-bar").getByRole("button", { name: "Reject…" }).click();
    await expectLongTextWraps(page, "the run with the reject form open at 390 px");
    await page.reload();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });

    // The edit form, then the review of the saved edit, then the plan with its diff.
    await page.getByRole("button", { name: "Edit plan" }).click();
    await page.locator('[id="steps.0.args.body"]').fill(`Your reference is ${TOKEN}B and the link: ${URL_LONG}&again`);
    await expectLongTextWraps(page, "the edit form at 390 px");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByRole("button", { name: "Back to the plan" })).toBeVisible();
    await expectLongTextWraps(page, "the review of the edit at 390 px");
    await page.screenshot({ path: testInfo.outputPath("long-text-review-390.png"), fullPage: true });
    await page.setViewportSize(DESKTOP);
    await expectLongTextWraps(page, "the review of the edit at 1366 px");
    await page.screenshot({ path: testInfo.outputPath("long-text-review-1366.png"), fullPage: true });
    await page.getByRole("button", { name: "Back to the plan" }).click();
    await expectLongTextWraps(page, "the edited run at 1366 px");
    await page.setViewportSize(PHONE);
    await expectLongTextWraps(page, "the edited run at 390 px");
  });
});

test.describe("the focus is never hidden under the sticky decision bar on a phone (WCAG 2.4.11)", () => {
  test.use({ storageState: STORAGE.senior, viewport: PHONE });

  test("tabbing forward and back through a run with focusable badges and acknowledgements at 390 px", async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const runId = await longTextRun(page, `focus-${testInfo.workerIndex}`);
    await page.goto(`/runs/${runId}`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const bar = page.getByTestId("decision-bar");
    await expect(bar).toBeVisible();
    /** Where the focused element is covered by the bar, if it is. */
    const covered = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const bar = document.querySelector('[data-testid="decision-bar"]');
        if (!el || !bar || el === document.body || bar.contains(el)) return null;
        const a = el.getBoundingClientRect();
        const b = bar.getBoundingClientRect();
        const under = a.bottom > b.top + 1 && a.top < b.bottom - 1 && a.right > b.left && a.left < b.right;
        return under ? `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}" at ${Math.round(a.top)}–${Math.round(a.bottom)} px, the bar from ${Math.round(b.top)} px` : null;
      });
    const hidden: string[] = [];
    let badges = 0;
    for (const key of ["Tab", "Shift+Tab"]) {
      for (let i = 0; i < 70; i++) {
        await page.keyboard.press(key);
        const r = await covered();
        if (r) hidden.push(`${key} ${i + 1}: ${r}`);
        if (await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid === "provenance")) badges++;
        // ticking an acknowledgement changes the bar's summary; the focus stays clear of it
        if (key === "Tab" && (await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type === "checkbox"))) {
          await page.keyboard.press("Space");
          const after = await covered();
          if (after) hidden.push(`${key} ${i + 1} after Space: ${after}`);
        }
      }
    }
    expect(badges, "the focusable provenance badge was reached").toBeGreaterThan(0);
    expect(hidden, hidden.join("\n")).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath("focus-390.png") });
  });
});

test.describe("the queue's warnings read on their own", () => {
  test.use({ storageState: STORAGE.senior, viewport: DESKTOP });

  test("a row's warnings cell is named '1 warning' or '2 warnings', apart from the approvals missing", async ({ page }, testInfo) => {
    await page.goto("/runs");
    const table = page.getByRole("table");
    await expect(table.getByRole("columnheader", { name: "Warnings" })).toBeVisible();
    const warned = table.getByTestId("warnings-cell").filter({ hasText: /\d warning/ });
    await expect(warned.first()).toBeVisible();
    const names = await warned.evaluateAll((cells) => cells.map((c) => c.textContent?.trim() ?? ""));
    for (const [i, text] of names.entries()) {
      expect(text).toMatch(/^(1 warning|[2-9]\d* warnings)$/);
      await expect(warned.nth(i)).toHaveAccessibleName(text);
    }
    // the approvals cell says only what is missing (and "beyond my limit"): no number runs into a warning
    for (const name of await table.getByTestId("approvals-missing").evaluateAll((cells) => cells.map((c) => c.textContent ?? ""))) expect(name).not.toMatch(/warning/);
    await expect(page.getByRole("cell", { name: /\d+ of \d+\d warning/ })).toHaveCount(0);
    // a row without warnings says so to a screen reader, not with a bare dash
    const calm = table.getByTestId("warnings-cell").filter({ hasNotText: /\d warning/ });
    if ((await calm.count()) > 0) await expect(calm.first()).toHaveAccessibleName("No warnings");
    await page.screenshot({ path: testInfo.outputPath("queue-1366.png") });
    await page.setViewportSize(PHONE);
    await page.reload();
    await expect(page.getByRole("list", { name: "Runs" }).getByText(/^\d+ warnings?$/).first()).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("queue-390.png") });
  });
});

test.describe("the desk-rule form says what it needs", () => {
  test.use({ storageState: STORAGE.supervisor });

  test("required fields are marked; a refused save takes the focus to the first field in error, which names its error", async ({ page }, testInfo) => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto("/desk-rules/new");
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      const form = page.getByRole("form", { name: "New desk rule" });
      const description = form.getByLabel("Description (what the agent and the card read)");
      const note = form.getByLabel("Why (a note for the audit)");
      for (const field of [description, note]) {
        await expect(field).toHaveAttribute("aria-required", "true");
        await expect(field).toHaveAttribute("aria-invalid", "false");
      }
      await expect(form.getByText("(required)")).toHaveCount(2);
      await form.getByRole("button", { name: "Make the rule" }).click();
      // the first field in error (the description) has the focus and its error as description
      await expect(description).toBeFocused();
      await expect(description).toHaveAttribute("aria-invalid", "true");
      const describedBy = await description.getAttribute("aria-describedby");
      expect(describedBy).toBeTruthy();
      await expect(page.locator(`[id="${describedBy}"]`)).toBeVisible();
      await expect(description).toHaveAccessibleDescription((await page.locator(`[id="${describedBy}"]`).textContent())!);
      await expect(note).toHaveAttribute("aria-invalid", "true");
      await page.screenshot({ path: testInfo.outputPath(`desk-rule-refused-${viewport.width}.png`), fullPage: true });
      // with the description given, the next refusal takes the focus to the note
      await description.fill("Replies follow a ticket note (e2e form)");
      await form.getByRole("button", { name: "Make the rule" }).click();
      await expect(note).toBeFocused();
      await expect(note).toHaveAccessibleDescription(/./);
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    }
  });
});

test.describe("insights put the edit rate beside the edits of the same runs", () => {
  test.use({ storageState: STORAGE.supervisor });

  test("the two headline figures say what they count and agree with each other", async ({ page }, testInfo) => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto("/insights");
      const rate = page.getByRole("term").filter({ hasText: "Edit rate: decided runs a person edited" });
      const edits = page.getByRole("term").filter({ hasText: "Edits on those decided runs" });
      await expect(rate).toBeVisible();
      await expect(edits).toBeVisible();
      const rateText = (await rate.locator("xpath=following-sibling::dd[1]").textContent())!;
      const editsText = (await edits.locator("xpath=following-sibling::dd[1]").textContent())!;
      // never "0.0%" beside edits of the same runs, nor edits on decided runs beside 0 %
      expect(rateText === "0.0%", `${rateText} beside ${editsText}`).toBe(editsText === "0");
      await expect(edits.locator("xpath=following-sibling::dd[2]")).toContainText(/stored in all/);
      await page.screenshot({ path: testInfo.outputPath(`insights-${viewport.width}.png`) });
    }
  });
});
