import AxeBuilder from "@axe-core/playwright";
import { test, expect, type APIRequestContext, type Browser } from "@playwright/test";
import { STORAGE } from "./helpers";

/*
 * A rule from a recurring edit: on the retail desk (no other spec plans for ticket #81003) the agent
 * twice proposes a bare reply; two people (the retail operator, then the supervisor) each add a
 * ticket note before it. On /insights the supervisor opens "Make a rule…" beside that recurring
 * edit, keeps the prefilled rule (a reply needs a note before it) as a warning on retail and makes
 * it. The agent's next bare reply shows the rule's warning on the run page, and insights lists the
 * rule with how often the edit still happens. The rule is disabled at the end (retail's other plans
 * carry their note anyway).
 */

const RETAIL_AGENT = { authorization: "Bearer pd_demo_retail_agent_key" };
const TASK = "task_retail_81003";
const REPLY = { id: "st_reply", tool: "send_reply", args: { ticketId: "81003", body: "Here is the copy of invoice in_81003 you asked for." } };

async function signInFresh(browser: Browser, email: string) {
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("plandesk-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  return { ctx, page };
}

/** The agent proposes only the reply (it forgot the note); returns the run id. */
async function bareReply(request: APIRequestContext): Promise<string> {
  const task = await (await request.get(`/api/v1/tasks/${TASK}`, { headers: RETAIL_AGENT })).json();
  const res = await request.post(`/api/v1/tasks/${TASK}/runs`, { headers: RETAIL_AGENT, data: { taskRevision: task.task.revision, steps: [REPLY] } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).run.id;
}

/** A person adds a ticket note before the reply (the edit that keeps recurring). */
async function addNoteFirst(request: APIRequestContext, runId: string, origin: string, note: string) {
  const { run } = await (await request.get(`/api/runs/${runId}`)).json();
  const steps = run.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
  const res = await request.post(`/api/runs/${runId}/edits`, { headers: { origin }, data: { baseVersion: run.planVersion, steps: [{ tool: "add_ticket_note", args: { ticketId: "81003", note } }, ...steps] } });
  expect(res.status(), await res.text()).toBe(201);
}

test("from a recurring edit on insights a supervisor makes a desk rule; the next plan that repeats the mistake shows its warning", async ({ browser, baseURL }) => {
  test.setTimeout(180_000); // two people's sessions, two edits, the insights page, axe and the rule form in one flow
  const origin = baseURL!;
  const retail = await signInFresh(browser, "retail@plandesk.test");
  const sup = await browser.newContext({ storageState: STORAGE.supervisor });
  const page = await sup.newPage();
  let ruleId: string | null = null;
  try {
    // Two runs, two people, the same edit.
    await addNoteFirst(retail.page.request, await bareReply(page.request), origin, "Customer asked for an invoice copy.");
    await addNoteFirst(page.request, await bareReply(page.request), origin, "Invoice copy requested by the customer.");

    // Insights lists it as recurring; "Make a rule…" opens the form prefilled from it.
    await page.goto("/insights");
    const row = page.getByTestId("recurring").getByRole("row").filter({ hasText: "add_ticket_note" }).filter({ hasText: "step added" });
    await expect(row).toHaveCount(1);
    await row.getByRole("link", { name: "Make a rule from add_ticket_note: step added" }).click();
    await expect(page.getByRole("heading", { name: "New desk rule" })).toBeVisible();
    await expect(page.getByRole("region", { name: "The recurring edit" })).toContainText("step added");
    await expect(page.getByRole("link", { name: /open the gate-policy editor with a rule for add_ticket_note/ })).toBeVisible();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    const form = page.getByRole("form", { name: "New desk rule" });
    await expect(form.getByLabel("Rule kind")).toHaveValue("step_requires_prior");
    await expect(form.getByLabel("Tool that must come first")).toHaveValue("add_ticket_note");
    await expect(form.getByLabel("Severity")).toHaveValue("warning");
    await form.getByLabel("Desk").selectOption("retail");
    await form.getByLabel("Tool", { exact: true }).selectOption("send_reply");
    await expect(form.getByTestId("rule-in-words")).toHaveText("Checks: send_reply needs an add_ticket_note step before it in the plan.");
    await form.getByLabel("Description (what the agent and the card read)").fill("A reply follows a ticket note (e2e)");
    await form.getByRole("button", { name: "Make the rule" }).click();
    await expect(form.getByText("Say why (a note for the audit)")).toBeVisible(); // the note is required
    // … says so before the click, and the refusal takes the focus to it
    await expect(form.getByLabel("Why (a note for the audit)")).toHaveAttribute("aria-required", "true");
    await expect(form.getByText("Why (a note for the audit) (required)")).toBeVisible();
    await expect(form.getByLabel("Why (a note for the audit)")).toBeFocused();
    await form.getByLabel("Why (a note for the audit)").fill("People keep adding the note before the reply");
    await form.getByRole("button", { name: "Make the rule" }).click();
    await expect(page.getByRole("heading", { name: "A reply follows a ticket note (e2e)" })).toBeVisible();
    ruleId = new URL(page.url()).pathname.split("/").at(-1)!;
    await expect(page.getByText(/retail · warning · version 1 · enabled/)).toBeVisible();

    // The agent repeats the mistake: the run page shows the rule's warning on the reply.
    const runId = await bareReply(page.request);
    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("list", { name: "Plan steps" })).toContainText(
      "Warning: Desk rule: A reply follows a ticket note (e2e) — step 1 (send_reply) has no add_ticket_note step before it.",
    );

    // Insights shows the rule made from the edit and how often the edit still happens.
    await page.goto("/insights");
    const made = page.getByTestId("rules-from-edits").getByRole("listitem").filter({ hasText: "A reply follows a ticket note (e2e)" });
    await expect(made).toContainText("retail, warning");
    await expect(made.getByTestId("rule-effect")).toContainText("the edit happened 0 times");
  } finally {
    if (ruleId) {
      const { rule } = await (await page.request.get(`/api/desk-rules/${ruleId}`)).json();
      const off = await page.request.put(`/api/desk-rules/${ruleId}`, { headers: { origin }, data: { baseVersion: rule.version, severity: rule.severity, description: rule.description, rule: rule.rule, enabled: false, note: "e2e done" } });
      expect(off.status()).toBe(200);
    }
    await retail.ctx.close();
    await sup.close();
  }
});
