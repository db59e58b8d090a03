/**
 * Every action of the run page is in the command palette, with its keys shown, and has a key of
 * its own: Take, Request approval, Suggest a step, Edit, Approve, Reject, and in the edit form
 * Move, Remove, Add a step and Save. After Take, Move, Remove, the stale-edit refusal and the
 * admin saves, focus rests on the next useful element — never on <body>.
 *
 * Tickets of its own: #75000 (scenario dup-75000; no other spec uses it). The tests take turns on
 * it (serial), since a new run for the ticket supersedes the one before. The admin test creates
 * its own desk and person (stamped names) and changes nothing seeded.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createRun } from "./factory";
import { STORAGE } from "./helpers";

test.describe.configure({ mode: "serial" });

const SHOTS = "/work/notes/shots/palette-keys";

async function expectAxeClean(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`) }))).toEqual([]);
}

/** Focus is on a connected element of the page, not the body (asserted after the page settled on `focused`). */
async function expectFocusNotOnBody(page: Page) {
  expect(await page.evaluate(() => !!document.activeElement && document.activeElement !== document.body && document.activeElement.isConnected)).toBe(true);
}

const palette = (page: Page) => page.getByRole("dialog", { name: "Command palette" });

/** Opens the palette with Ctrl+K and checks that the action `label` is listed with `keys` shown. */
async function expectInPalette(page: Page, label: string, keys: string) {
  const option = palette(page).getByRole("option", { name: new RegExp(label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) });
  await expect(option).toBeVisible();
  await expect(option.locator("kbd")).toHaveText(keys);
}

/** Runs the action `label` from the palette by keyboard alone: Ctrl+K, its words typed, Enter. */
async function runFromPalette(page: Page, label: string, keys: string) {
  await page.keyboard.press("Control+k");
  await expect(palette(page).getByRole("combobox")).toBeFocused();
  await page.keyboard.type(label);
  await expectInPalette(page, label, keys);
  await page.keyboard.press("Enter");
  await expect(palette(page)).toHaveCount(0);
}

/** Waits until the page has a handler for the shortcut `id` (html[data-shortcuts]). */
const shortcutReady = (page: Page, id: string) => page.locator(`html[data-shortcuts~="${id}"]`).waitFor({ state: "attached" });

test.describe("the run page's ownership actions", () => {
  test.use({ storageState: STORAGE.operator });

  test("Take, Request approval and Suggest a step are in the palette with their keys, run from it and by their keys, and focus follows", async ({ page }) => {
    const runId = await createRun(page.request, "dup-75000");
    await page.goto(`/runs/${runId}`);
    const panel = page.getByRole("region", { name: "Ownership" });
    await expect(panel.getByTestId("assignee")).toHaveText("Unassigned");
    await shortcutReady(page, "take");

    // every action of the page, each with its keys
    await page.keyboard.press("Control+k");
    for (const [label, keys] of [
      ["Take this run", "t"],
      ["Request approval", "h"],
      ["Suggest a step", "Shift+S"],
      ["Edit the plan", "e"],
      ["Approve what is on screen", "a"],
      ["Reject", "r"],
      ["Show all keyboard shortcuts", "?"],
      ["Go to the queue", "g then q"],
    ] as const)
      await expectInPalette(page, label, keys);
    await expectAxeClean(page);
    await page.screenshot({ path: `${SHOTS}/palette-run-1366.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/palette-run-390.png` });
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.keyboard.press("Escape");
    await expect(palette(page)).toHaveCount(0);

    // Take from the palette: focus on the line saying the run is now the viewer's
    await runFromPalette(page, "Take this run", "t");
    await expect(panel.getByTestId("assignee")).toHaveText("Assigned to you (Olivia Operator)");
    await expect(panel.getByTestId("assignee")).toBeFocused();
    await expect(panel.getByRole("button", { name: "Take this run" })).toHaveCount(0);
    await expectFocusNotOnBody(page);

    // Request approval from the palette, then by h: focus in the form
    const request = page.getByRole("form", { name: "Request approval" });
    await runFromPalette(page, "Request approval", "h");
    await expect(request).toBeVisible();
    await expect(request.locator(":focus")).toHaveCount(1);
    await panel.getByRole("button", { name: "Request approval" }).click();
    await expect(request).toHaveCount(0);
    await page.keyboard.press("h");
    await expect(request.locator(":focus")).toHaveCount(1);
    await panel.getByRole("button", { name: "Request approval" }).click();
    await expect(request).toHaveCount(0);

    // Suggest a step from the palette, then by Shift+S: focus on its Tool
    const suggest = page.getByRole("form", { name: "Suggest a step" });
    await runFromPalette(page, "Suggest a step", "Shift+S");
    await expect(suggest.getByLabel("Tool")).toBeFocused();
    await panel.getByRole("button", { name: "Suggest a step" }).click();
    await expect(suggest).toHaveCount(0);
    await page.keyboard.press("Shift+S");
    await expect(suggest.getByLabel("Tool")).toBeFocused();
    // typed in a field, the keys are text, never shortcuts
    await suggest.locator("#sug-note").focus();
    await page.keyboard.type("th");
    await expect(suggest.locator("#sug-note")).toHaveValue("th");
    await expect(request).toHaveCount(0);

    // Take by its key, on a fresh run of the ticket
    const second = await createRun(page.request, "dup-75000");
    await page.goto(`/runs/${second}`);
    await expect(panel.getByTestId("assignee")).toHaveText("Unassigned");
    await shortcutReady(page, "take");
    await page.keyboard.press("t");
    await expect(panel.getByTestId("assignee")).toHaveText("Assigned to you (Olivia Operator)");
    await expect(panel.getByTestId("assignee")).toBeFocused();
    await expectFocusNotOnBody(page);
  });
});

test.describe("the edit form's step actions and the stale-edit refusal", () => {
  test.use({ storageState: STORAGE.senior, colorScheme: "dark" });

  test("Move, Remove, Add a step and Save are in the palette with their keys; after Move, Remove and the refusal focus is on the moved step, the next step, the refusal", async ({ page, baseURL }) => {
    const runId = await createRun(page.request, "dup-75000");
    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #75000");
    await shortcutReady(page, "edit");
    await page.keyboard.press("e");
    const form = page.getByRole("form", { name: "Edit plan" });
    await expect(form).toBeVisible();
    const step = (i: number) => form.locator(`[data-step-index="${i}"]`);
    await expect(step(0).getByRole("heading", { level: 3 })).toContainText("issue_refund");
    await expect(step(1).getByRole("heading", { level: 3 })).toContainText("send_reply");
    await step(0).locator("input").first().focus();

    // the palette (opened from a field) lists the form's actions with their keys; axe-clean in dark mode
    await page.keyboard.press("Control+k");
    for (const [label, keys] of [
      ["Move the step you are in up", "Alt+Shift+K"],
      ["Move the step you are in down", "Alt+Shift+J"],
      ["Remove the step you are in", "Alt+Shift+X"],
      ["Add a step", "Alt+N"],
      ["Save the edit", "Ctrl+Enter"],
      ["Next step's first field", "Alt+J"],
    ] as const)
      await expectInPalette(page, label, keys);
    await expectAxeClean(page);
    await page.keyboard.press("Escape");
    await expect(step(0).locator("input").first()).toBeFocused(); // back where it was

    // Move down from the palette: acts on the step focus was in; focus on its handle at its new place
    await runFromPalette(page, "Move the step you are in down", "Alt+Shift+J");
    await expect(step(1).getByRole("heading", { level: 3 })).toContainText("issue_refund");
    await expect(step(1).getByRole("button", { name: "Move step 2 up" })).toBeFocused();
    // Move up by its key: back to the top, focus on its handle (the way it can still go)
    await page.keyboard.press("Alt+Shift+K");
    await expect(step(0).getByRole("heading", { level: 3 })).toContainText("issue_refund");
    await expect(step(0).getByRole("button", { name: "Move step 1 down" })).toBeFocused();
    // and by the mouse
    await step(0).getByRole("button", { name: "Move step 1 down" }).click();
    await expect(step(1).getByRole("heading", { level: 3 })).toContainText("issue_refund");
    await expect(step(1).getByRole("button", { name: "Move step 2 up" })).toBeFocused();
    await expectFocusNotOnBody(page);

    // Remove by its key (focus in step 2, the refund): focus in the step that is left
    await page.keyboard.press("Alt+Shift+X");
    await expect(step(1)).toHaveCount(0);
    await expect(step(0).locator(":focus")).toHaveCount(1);
    await expectFocusNotOnBody(page);

    // Add a step (Alt+N, "i" for Issue refund), then Remove it from the palette
    await page.keyboard.press("Alt+N");
    await expect(page.getByLabel("Add step")).toBeFocused();
    await page.keyboard.press("i");
    await expect(page.locator('[id="steps.1.args.invoiceId"]')).toBeFocused();
    await runFromPalette(page, "Remove the step you are in", "Alt+Shift+X");
    await expect(step(1)).toHaveCount(0);
    await expect(step(0).locator(":focus")).toHaveCount(1);
    await expectFocusNotOnBody(page);

    // Someone else saves first (the plan as it was, its reply removed): Save is refused as stale,
    // and focus is on the refusal
    const { run } = await (await page.request.get(`/api/runs/${runId}`)).json();
    const steps = run.steps.filter((s: { tool: string }) => s.tool !== "send_reply").map((s: Record<string, unknown>) => ({ id: s.id, tool: s.tool, args: s.args, title: s.title, risk: s.risk, stopCondition: s.stopCondition, evidence: s.evidence }));
    const res = await page.request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: run.planVersion, steps }, headers: { origin: baseURL! } });
    expect(res.status(), await res.text()).toBe(201);
    await step(0).locator("input").first().focus();
    await page.keyboard.press("Control+Enter");
    const refusal = page.getByRole("heading", { name: "Someone else changed this plan first" });
    await expect(refusal).toBeFocused();
    await expectFocusNotOnBody(page);
  });
});

test.describe("admin saves", () => {
  test.use({ storageState: STORAGE.admin });

  test("after creating a desk and a person, and saving a role, a grant, a desk and access, focus is on the form's status line", async ({ page }) => {
    const stamp = Date.now();
    const deskId = `pk-${stamp.toString(36)}`;
    const person = `Pia ${stamp}`;

    await page.goto("/admin/desks");
    const desk = page.getByRole("region", { name: "Create a desk" });
    await desk.getByLabel("Desk id").fill(deskId);
    await desk.getByLabel("Name").fill(`Desk ${stamp}`);
    await desk.getByRole("button", { name: "Create desk" }).click();
    await expect(desk.getByRole("status")).toHaveText(`Created the Desk ${stamp} desk.`);
    await expect(desk.getByRole("status")).toBeFocused();
    await expectFocusNotOnBody(page);

    await page.goto("/admin/users");
    const create = page.getByRole("region", { name: "Create a user" });
    await create.getByLabel("Email").fill(`pia.${stamp}@example.com`);
    await create.getByLabel("Name").fill(person);
    await create.getByLabel("Role").selectOption("operator");
    await create.getByLabel("Initial password").fill("pia-initial-pass");
    await create.getByRole("button", { name: "Create user" }).click();
    await expect(create.getByRole("status")).toHaveText(`Created pia.${stamp}@example.com.`);
    await expect(create.getByRole("status")).toBeFocused();

    // access: Disable, confirmed, then Enable — focus on the row's status line each time
    const row = page.getByRole("row", { name: new RegExp(person) });
    await row.getByRole("button", { name: `Disable ${person}` }).click();
    await row.getByRole("button", { name: "Confirm disable" }).click();
    await expect(row.getByRole("status")).toHaveText("Disabled and signed out.");
    await expect(row.getByRole("status")).toBeFocused();
    await row.getByRole("button", { name: `Enable ${person}` }).click();
    await expect(row.getByRole("status")).toHaveText("Can sign in again.");
    await expect(row.getByRole("status")).toBeFocused();

    await page.getByRole("link", { name: person, exact: true }).click();
    await expect(page.getByRole("heading", { name: `Grants of ${person}` })).toBeVisible();
    await page.getByLabel("May approve Issue refund").check();
    await page.getByLabel("Approval ceiling for Issue refund", { exact: true }).fill("120.00");
    await page.getByRole("button", { name: "Save Issue refund grant" }).click();
    const grantStatus = page.locator('[id="grant-issue_refund-saved"]');
    await expect(grantStatus).toHaveText("Saved: approves up to $120.00; may not author.");
    await expect(grantStatus).toBeFocused();

    await page.locator("#role").selectOption("supervisor");
    await page.getByRole("button", { name: "Save role" }).click();
    await expect(page.locator("#role-form-saved")).toHaveText("Saved: role supervisor.");
    await expect(page.locator("#role-form-saved")).toBeFocused();

    await page.locator("#user-desk").selectOption(deskId);
    await page.getByRole("button", { name: "Save desk" }).click();
    await expect(page.locator("#user-desk-saved")).toHaveText(`Saved: desk Desk ${stamp}.`);
    await expect(page.locator("#user-desk-saved")).toBeFocused();
    await expectFocusNotOnBody(page);
  });
});
