import { test, expect, type Page } from "@playwright/test";
import { STORAGE } from "./helpers";

// Issue 14, case 7: no page is wider than a 390 px phone (iPhone 12–15 width), including the
// plan's edit form with its add-step menu; narrow screens get a menu for navigation and the
// queue as cards.

const PHONE = { width: 390, height: 844 };
test.use({ viewport: PHONE });

/** Fails with the widest offenders when the page scrolls sideways. */
async function expectNoOverflow(page: Page, what: string) {
  await page.waitForLoadState("networkidle");
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

test.describe("390 px: operator pages", () => {
  test.use({ storageState: STORAGE.senior });

  test("queue (cards), run, edit form with the add-step menu, review, audit", async ({ page }, testInfo) => {
    await page.goto("/runs?status=all");
    await expectNoOverflow(page, "/runs");
    await expect(page.getByRole("list", { name: "Runs" })).toBeVisible();
    await expect(page.getByRole("table")).toBeHidden();
    await expect(page.getByText(/^expires in /).first()).toBeVisible(); // expiry in view, no sideways scroll

    await page.getByText("Menu").click();
    await expect(page.getByRole("navigation", { name: "Main menu" }).getByRole("link", { name: "Queue" })).toBeVisible();

    // a run of its own (ticket 75015: no other spec proposes runs for it)
    const auth = { authorization: "Bearer pd_demo_agent_key" };
    const task = await (await page.request.get("/api/v1/tasks/task_75015", { headers: auth })).json();
    const res = await page.request.post("/api/v1/tasks/task_75015/runs", {
      headers: auth,
      data: {
        taskRevision: task.task.revision,
        steps: [
          { id: "refund", tool: "issue_refund", args: { invoiceId: "in_74201", amount: { minor: 22000, currency: "USD" }, reason: "Reefer plug-in fee charged although the unit was never plugged in" } },
          { id: "reply", tool: "send_reply", args: { ticketId: "75015", body: "We have refunded the reefer plug-in fee of $220.00 on invoice in_74201; it will show on your account within five working days." } },
          { id: "note", tool: "add_ticket_note", args: { ticketId: "75015", note: "Refund of REEFER_PLUGIN on in_74201 after checking the temperature log." } },
        ],
      },
    });
    expect(res.status(), await res.text()).toBe(201);
    const id = (await res.json()).run.id as string;
    await page.goto(`/runs/${id}`);
    await expectNoOverflow(page, "/runs/[id]");
    await page.getByRole("button", { name: "Edit plan" }).click();
    await expectNoOverflow(page, "the edit form");
    await page.locator('[id="steps.0.args.amount"]').fill("200,00");
    await expect(page.getByTestId("money-reading")).toHaveText(/\$200\.00/);
    await page.locator('[id="steps.1.args.body"]').fill("We have refunded $200.00 of the reefer plug-in fee on invoice in_74201; it will show on your account within five working days.");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByRole("region", { name: /Your edit changed/ })).toBeVisible();
    await expectNoOverflow(page, "the review after an edit");
    await page.screenshot({ path: testInfo.outputPath("review-phone.png"), fullPage: true });
    await page.goto(`/runs/${id}/audit`);
    await expectNoOverflow(page, "/runs/[id]/audit");
  });
});

test.describe("390 px: supervisor pages", () => {
  test.use({ storageState: STORAGE.supervisor });
  for (const path of ["/escalations", "/reconciliation", "/insights", "/denials", "/notifications"]) {
    test(path, async ({ page }) => {
      await page.goto(path);
      await expectNoOverflow(page, path);
    });
  }
});

test.describe("390 px: admin pages", () => {
  test.use({ storageState: STORAGE.admin });
  for (const path of ["/admin/users", "/admin/agents", "/admin/tools", "/admin/gate-policy", "/admin/webhooks"]) {
    test(path, async ({ page }) => {
      await page.goto(path);
      await expectNoOverflow(page, path);
    });
  }
});

test.describe("390 px: signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } });
  test("/sign-in", async ({ page }) => {
    await page.goto("/sign-in");
    await expectNoOverflow(page, "/sign-in");
  });
});
