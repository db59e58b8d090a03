import { test, expect, type Page } from "@playwright/test";
import { openTaskWithPlan, STORAGE } from "./helpers";

// No page and no form state is wider than a phone: 360 px (small Android) and 390 px (iPhone
// 12–15), including the plan's edit form with its add-step menu (long disabled options for an
// operator without grants), the review, the audit trail, the toast, the command palette and the
// admin pages; narrow screens get a menu for navigation and the queue as cards, which j/k walk.

const PHONE = { width: 390, height: 844 };
const WIDTHS = [360, 390] as const;
test.use({ viewport: PHONE });

/** Fails with the widest offenders when the page scrolls sideways. */
async function expectNoOverflow(page: Page, what: string) {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const report = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll<HTMLElement>("body *")]
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter(({ el, right }) => right > vw + 1 && el.getClientRects().length > 0)
      .filter(({ el }) => !el.closest("[data-scrolls-inside]")) // a table may scroll inside its own box
      .slice(0, 8)
      .map(({ el, right }) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${String(el.className).slice(0, 60)} → ${Math.round(right)} px`);
    return { scrollWidth: document.documentElement.scrollWidth, vw, wide };
  });
  expect(report.scrollWidth, `${what} is ${report.scrollWidth} px wide at ${report.vw} px:\n${report.wide.join("\n")}`).toBeLessThanOrEqual(report.vw);
}

/** Every element of the page inside the viewport's width (not only the document's scroll width): a cut-off toast or "(+4 days)" counts. */
async function expectAllInside(page: Page, what: string, selector = "main *, [role=status] *, [role=alert] *, [data-testid=decision-bar] *") {
  const out = await page.evaluate((sel) => {
    const vw = document.documentElement.clientWidth;
    return [...document.querySelectorAll<HTMLElement>(sel)]
      .filter((el) => el.getClientRects().length > 0 && !el.closest("[data-scrolls-inside]") && !el.closest(".sr-only"))
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && (r.right > vw + 1 || r.left < -1))
      .slice(0, 6)
      .map(({ el, r }) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 50)} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
  }, selector);
  expect(out, `${what}: elements outside the viewport:\n${out.join("\n")}`).toEqual([]);
}

test.describe("phone widths: operator pages", () => {
  test.use({ storageState: STORAGE.senior });

  test("queue (cards, j/k), run, edit form with the add-step menu, review, audit, toast, palette — at 360 and 390 px", async ({ page }, testInfo) => {
   for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto("/runs?status=all");
    // the server renders the table; the client switches to the phone cards right after hydration
    await expect(page.getByRole("list", { name: "Runs" })).toBeVisible();
    await expectNoOverflow(page, `/runs at ${width}`);
    // j/k walk the phone cards too
    await page.locator("main h1").click();
    await page.keyboard.press("j");
    await expect(page.locator('ul[aria-label="Runs"] > li[aria-current="true"]')).toHaveCount(1);
    const firstCurrent = await page.locator('ul[aria-label="Runs"] > li[aria-current="true"] a').first().getAttribute("href");
    await page.keyboard.press("j");
    await expect(page.locator('ul[aria-label="Runs"] > li[aria-current="true"] a').first()).not.toHaveAttribute("href", firstCurrent!);
    await page.keyboard.press("k");
    await expect(page.locator('ul[aria-label="Runs"] > li[aria-current="true"] a').first()).toHaveAttribute("href", firstCurrent!);
    // the palette fits
    await page.keyboard.press("Control+k");
    await expect(page.getByRole("dialog", { name: "Command palette" })).toBeVisible();
    await expectAllInside(page, `the palette at ${width}`, "dialog *");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("list", { name: "Runs" })).toBeVisible();
    await expect(page.getByRole("table")).toBeHidden();
    await expect(page.getByText(/^expires in /).first()).toBeVisible(); // expiry in view, no sideways scroll

    await page.getByText("Menu").click();
    await expect(page.getByRole("navigation", { name: "Main menu" }).getByRole("link", { name: "Queue" })).toBeVisible();

    // a run of its own, on a task the ticketing integration opens as a refund request
    const ticketId = `e2e-narrow-${width}-${Date.now()}`;
    const { runId: id } = await openTaskWithPlan(
      page.request,
      { ticketId, accountId: "acc_baltic", subject: "Reefer plug-in fee", parts: [{ source: "system", text: "Question on REEFER_PLUGIN fee of in_74201." }], contract: { intent: "refund_request", constraints: {} } },
      [
        { id: "refund", tool: "issue_refund", args: { invoiceId: "in_74201", amount: { minor: 22000, currency: "USD" }, reason: "Reefer plug-in fee charged although the unit was never plugged in" }, title: "Refund the reefer plug-in fee", evidence: [{ recordType: "invoice", recordId: "in_74201" }], risk: "Money leaves the company", stopCondition: "The fee was waived meanwhile" },
        { id: "reply", tool: "send_reply", args: { ticketId, body: "We have refunded the reefer plug-in fee of $220.00 on invoice in_74201; it will show on your account within five working days." } },
        { id: "note", tool: "add_ticket_note", args: { ticketId, note: "Refund of REEFER_PLUGIN on in_74201 after checking the temperature log." } },
      ],
    );
    await page.goto(`/runs/${id}`);
    await expectNoOverflow(page, `/runs/[id] at ${width}`);
    await expectAllInside(page, `/runs/[id] at ${width}`);
    await page.getByRole("button", { name: "Edit plan" }).click();
    await expectNoOverflow(page, `the edit form at ${width}`);
    await expectAllInside(page, `the edit form at ${width}`);
    await page.locator('[id="steps.0.args.amount"]').fill("200,00");
    await expect(page.getByTestId("money-reading")).toHaveText(/\$200\.00/);
    await page.locator('[id="steps.1.args.body"]').fill("We have refunded $200.00 of the reefer plug-in fee on invoice in_74201; it will show on your account within five working days.");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByRole("region", { name: /Your edit changed/ })).toBeVisible();
    await expectNoOverflow(page, `the review after an edit at ${width}`);
    await expectAllInside(page, `the review (and its toast) at ${width}`);
    await page.screenshot({ path: testInfo.outputPath(`review-phone-${width}.png`), fullPage: true });
    await page.goto(`/runs/${id}/audit`);
    await expectNoOverflow(page, `/runs/[id]/audit at ${width}`);
    await expectAllInside(page, `/runs/[id]/audit at ${width}`);
   }
  });
});

test.describe("phone widths: what an agent wrote never widens the page", () => {
  test.use({ storageState: STORAGE.senior });

  test("a reply with a 300-character unbroken token and a long URL wraps inside the step card at 360 and 390 px", async ({ page }, testInfo) => {
    const ticketId = `e2e-long-${testInfo.workerIndex}-${Date.now()}`;
    const token = "A".repeat(300);
    const url = `https://tracking.example.com/shipments/sh_5650/${"segment-".repeat(30)}end?ref=${"x".repeat(120)}`;
    const { runId } = await openTaskWithPlan(
      page.request,
      { ticketId, accountId: "acc_rhine", subject: "Tracking link does not open", parts: [{ source: "system", text: "Customer says the tracking link in our last reply does not open." }] },
      [{ id: "reply", tool: "send_reply", args: { ticketId, body: `Here is your reference ${token} and the link: ${url}` } }],
    );
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`/runs/${runId}`);
      await expect(page.getByRole("list", { name: "Plan steps" })).toContainText(token.slice(0, 40));
      await expectNoOverflow(page, `the run with a long reply at ${width}`);
      await expectAllInside(page, `the run with a long reply at ${width}`);
    }
    await page.screenshot({ path: testInfo.outputPath("long-token-390.png"), fullPage: true });
  });

  test("Tab never leaves the focus under the sticky decision bar on a phone (WCAG 2.4.11)", async ({ page }) => {
    await page.goto("/runs?status=pending_review");
    await page.locator('ul[aria-label="Runs"] > li a').first().click();
    await expect(page.getByTestId("decision-bar")).toBeVisible();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const hidden: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press("Tab");
      const r = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const bar = document.querySelector('[data-testid="decision-bar"]');
        if (!el || !bar || bar.contains(el) || el === document.body) return null;
        const a = el.getBoundingClientRect();
        const b = bar.getBoundingClientRect();
        return a.bottom > b.top + 1 && a.top < b.bottom ? `${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 40)}" [${Math.round(a.top)}–${Math.round(a.bottom)}] under the bar [${Math.round(b.top)}]` : null;
      });
      if (r) hidden.push(r);
    }
    expect(hidden, hidden.join("\n")).toEqual([]);
  });
});

test.describe("phone widths: an operator without grants (long disabled options in Add step) and an admin", () => {
  test.use({ storageState: STORAGE.operator });

  test("the edit form with every disabled tool and its reason fits at 360 and 390 px", async ({ page }) => {
    const auth = { authorization: "Bearer pd_demo_agent_key" };
    const task = await (await page.request.get("/api/v1/tasks/task_75019", { headers: auth })).json();
    const res = await page.request.post("/api/v1/tasks/task_75019/runs", {
      headers: auth,
      data: { taskRevision: task.task.revision, steps: [{ id: "note", tool: "add_ticket_note", args: { ticketId: "75019", note: "Checked the temperature log." } }] },
    });
    expect(res.status(), await res.text()).toBe(201);
    const id = (await res.json()).run.id as string;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`/runs/${id}`);
      await expectNoOverflow(page, `/runs/[id] at ${width}`);
      await page.getByRole("button", { name: "Edit plan" }).click();
      await expect(page.getByLabel("Add step")).toBeVisible();
      await expectNoOverflow(page, `the edit form (operator) at ${width}`);
      await expectAllInside(page, `the edit form (operator) at ${width}`);
    }
  });
});

for (const width of WIDTHS) {
  test.describe(`${width} px: supervisor pages`, () => {
    test.use({ storageState: STORAGE.supervisor, viewport: { width, height: 844 } });
    for (const path of ["/escalations", "/reconciliation", "/insights", "/denials", "/notifications", "/runs/not-a-run"]) {
      test(path, async ({ page }) => {
        await page.goto(path);
        await expectNoOverflow(page, path);
      });
    }
    test("the audit trail", async ({ page }) => {
      const { runs } = (await (await page.request.get("/api/runs")).json()) as { runs: { id: string }[] };
      await page.goto(`/runs/${runs[0].id}/audit`);
      await expectNoOverflow(page, "/runs/[id]/audit");
      await expectAllInside(page, "/runs/[id]/audit");
    });
  });

  test.describe(`${width} px: admin pages`, () => {
    test.use({ storageState: STORAGE.admin, viewport: { width, height: 844 } });
    for (const path of ["/admin", "/admin/users", "/admin/users/usr_operator", "/admin/agents", "/admin/tools", "/admin/gate-policy", "/admin/webhooks", "/admin/integrations", "/admin/desks", "/admin/desks/freight/intents", "/admin/desks/freight/record-kinds", "/admin/desks/retail/sign-in", "/denials"]) {
      test(path, async ({ page }) => {
        await page.goto(path);
        await expectNoOverflow(page, path);
      });
    }
    test("a run, as an admin: Edit plan disabled with its reason, and the page fits", async ({ page }) => {
      const { runs } = (await (await page.request.get("/api/runs")).json()) as { runs: { id: string }[] };
      await page.goto(`/runs/${runs[0].id}`);
      await expect(page.getByRole("button", { name: "Edit plan" })).toBeDisabled();
      await expect(page.getByTestId("edit-block")).toContainText("Only operators and supervisors of the desk edit plans");
      await expectNoOverflow(page, "/runs/[id] (admin)");
      await expectAllInside(page, "/runs/[id] (admin)");
    });
  });

  test.describe(`${width} px: signed out`, () => {
    test.use({ storageState: { cookies: [], origins: [] }, viewport: { width, height: 844 } });
    test("/sign-in", async ({ page }) => {
      await page.goto("/sign-in");
      await expectNoOverflow(page, "/sign-in");
    });
  });
}
