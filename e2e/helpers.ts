import { expect, type APIRequestContext, type Page } from "@playwright/test";

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

/** The demo desk's keys: the ticketing integration (opens tasks) and the agent (submits plans). */
export const DEMO_KEYS = {
  integration: { authorization: "Bearer pd_demo_integration_key" },
  agent: { authorization: "Bearer pd_demo_agent_key" },
} as const;

/** What the ticketing integration sends to open a task (`POST /api/v1/tasks`). */
export type TaskOpening = { ticketId: string; accountId: string; subject: string; parts: { source: string; text: string }[]; contract?: Record<string, unknown> };

/**
 * Opens a fresh task through the ticketing door with the demo integration key, so no other spec
 * proposes runs for it, and submits the agent's plan for it. Returns the task (id, revision) and
 * the new run's id. Fails the test with the answer's body when either call is refused.
 */
export async function openTaskWithPlan(request: APIRequestContext, opening: TaskOpening, steps: unknown[]): Promise<{ task: { id: string; revision: number }; runId: string }> {
  const opened = await request.post("/api/v1/tasks", { headers: DEMO_KEYS.integration, data: opening });
  expect(opened.status(), await opened.text()).toBe(201);
  const task = (await opened.json()).task as { id: string; revision: number };
  const submitted = await request.post(`/api/v1/tasks/${task.id}/runs`, { headers: DEMO_KEYS.agent, data: { taskRevision: task.revision, steps } });
  expect(submitted.status(), await submitted.text()).toBe(201);
  return { task, runId: (await submitted.json()).run.id as string };
}

/**
 * Fills the "Why" of the edit form's step `index` that the seeded gate policy requires of a
 * person's irreversible step beyond what the form starts it with (a title derived from the step and
 * the task's ticket as evidence): its risk and its stop condition. Opens the section first when it
 * is folded (the gate policy requires nothing of the step).
 */
export async function fillWhy(page: import("@playwright/test").Page, index: number, why: { risk: string; stopCondition: string } = { risk: "Money leaves the company", stopCondition: "Stop if it was already refunded" }): Promise<void> {
  // a step the gate policy requires nothing of keeps its Why folded: open it as a person would
  const fold = page.getByTestId(`why-toggle-${index}`);
  if ((await fold.count()) > 0 && (await fold.getAttribute("aria-expanded")) === "false") await fold.click();
  await page.locator(`[id="steps.${index}.risk"]`).fill(why.risk);
  await page.locator(`[id="steps.${index}.stopCondition"]`).fill(why.stopCondition);
}

/** The reasons the seeded gate policy requires of a refund a person adds through the API: a title, the task's ticket as evidence, a risk and a stop condition. */
export function refundWhy(ticketId: string, invoiceId: string) {
  return { title: `Issue refund on ${invoiceId}`, evidence: [{ recordType: "ticket", recordId: ticketId }], risk: "Money leaves the company", stopCondition: `Stop if ${invoiceId} was already refunded` };
}

/**
 * Opens a fresh "Charged twice" task of Rhine Valley Imports (ticket `ticketId`, through the
 * ticketing door) with the agent's plan: a $1,060.00 refund of in_74310 carrying the reasons the
 * seeded gate policy asks of money steps, then a reply promising exactly that amount. The plan a
 * person's edit of the amount leaves inconsistent (the reply's promise).
 */
export function openChargedTwicePlan(request: APIRequestContext, ticketId: string): Promise<{ task: { id: string; revision: number }; runId: string }> {
  return openTaskWithPlan(
    request,
    { ticketId, accountId: "acc_rhine", subject: "Charged twice", parts: [{ source: "system", text: "in_74310 was charged twice; refund the second charge." }], contract: { intent: "refund_request", constraints: {} } },
    [
      {
        id: "refund",
        tool: "issue_refund",
        args: { invoiceId: "in_74310", amount: { minor: 106000, currency: "USD" }, reason: "Second charge" },
        title: "Refund the second charge",
        evidence: [{ recordType: "invoice", recordId: "in_74310" }],
        risk: "Money leaves the company",
        stopCondition: "The second charge was reversed meanwhile",
        rationale: "The invoice was charged twice.",
      },
      { id: "reply", tool: "send_reply", args: { ticketId, body: "We have refunded $1,060.00 for the second charge on in_74310." } },
    ],
  );
}
