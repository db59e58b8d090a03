import { test, expect, type APIRequestContext, type Page } from "@playwright/test";
import { STORAGE } from "./helpers";

// Hardening round two, case 17 in the browser: text tells the truth. A right-to-left override in a
// reply is shown as markers (never applied) on the run page's card and on the review screen, the
// reply is flagged `hidden_characters`, and the promise scan reads the text as displayed
// ("refund"), so approving needs both acknowledgements. A whitespace-only edit (a space moved
// inside an imported tool's shell command, a space turned into a no-break space) is marked on the
// review screen. Tickets 75013 and 75017 are used by no other spec (the simulator's refund is on 75018).

const AGENT = { authorization: "Bearer pd_demo_agent_key" };

async function submit(request: APIRequestContext, ticket: string, steps: unknown[], headers: Record<string, string> = AGENT): Promise<string> {
  const task = await (await request.get(`/api/v1/tasks/task_${ticket}`, { headers })).json();
  const res = await request.post(`/api/v1/tasks/task_${ticket}/runs`, { headers, data: { taskRevision: task.task.revision, steps } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).run.id;
}

/** Opens a page and waits until React has hydrated it (the live stream keeps the network busy). */
async function open(page: Page, path: string) {
  await page.goto(path);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

test.describe("hidden text on the card and the review (hardening case 17)", () => {
  test.use({ storageState: STORAGE.senior });

  test("a right-to-left override is shown as markers, flagged, read as displayed, and must be acknowledged", async ({ page, baseURL }) => {
    const t = "75013";
    const body = "we will \u202ednufer\u202c you $150.00";
    const id = await submit(page.request, t, [{ id: "r1", tool: "send_reply", args: { ticketId: t, body } }]);

    // the server: flagged, and the promise scan read "refund" (display order), not "dnufer"
    const details = await (await page.request.get(`/api/runs/${id}`)).json();
    const issues = details.validation.issues as { code: string; stepId: string; message: string; needsAcknowledgement?: boolean }[];
    const hidden = issues.find((i) => i.code === "hidden_characters");
    expect(hidden, JSON.stringify(issues)).toMatchObject({ stepId: "r1", needsAcknowledgement: true });
    const promise = issues.find((i) => i.code === "unbacked_commitment");
    expect(promise, JSON.stringify(issues)).toMatchObject({ stepId: "r1", needsAcknowledgement: true });
    expect(promise!.message).toContain("refund");
    const refused = await page.request.post(`/api/runs/${id}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-rlo-${id}` }, headers: { origin: baseURL! } });
    expect(refused.status()).toBe(422);
    expect((await refused.json()).error.code).toBe("acknowledgement_required");

    await open(page, `/runs/${id}`);
    const card = page.getByRole("list", { name: "Plan steps" }).getByRole("listitem").filter({ hasText: /^Step 1/ });
    // the override is a marker on the card, not applied: the letters stay in stored order, in the
    // reply's argument and in "Customer will have been told" alike
    await expect(card.locator('[data-hidden-character="RLO"]')).toHaveText(["RLO", "RLO"]);
    await expect(card.locator('[data-hidden-character="PDF"]')).toHaveText(["PDF", "PDF"]);
    await expect(card.locator("dl")).toContainText("we will RLOdnuferPDF you $150.00");
    await expect(card.getByTestId("after-step")).toContainText("we will RLOdnuferPDF you $150.00");
    expect(await card.innerText()).not.toContain("\u202e");
    await expect(card).toContainText(/hidden characters? \(RLO, PDF\)/);

    // approving needs both acknowledgements: the promise read in display order and the hidden characters
    const approve = page.getByTestId("approve-all");
    await expect(approve).toBeDisabled();
    const ackPromise = page.getByLabel(/I acknowledge: The reply promises money \("we will refund you \$150\.00/);
    const ackHidden = page.getByLabel(/I acknowledge: body holds 2 hidden characters \(RLO, PDF\)/);
    await ackPromise.check();
    await expect(approve).toBeDisabled();
    await ackHidden.check();
    await expect(approve).toBeEnabled();

    // the review screen after an edit: the changed reply shows the same markers
    await page.getByRole("button", { name: "Edit plan" }).click();
    await page.locator('[id="steps.0.args.body"]').fill(`Hello, ${body} today.`);
    await page.getByRole("button", { name: "Save edit" }).click();
    const review = page.getByRole("region", { name: /Your edit changed/ });
    await expect(review.locator('[data-hidden-character="RLO"]').first()).toBeVisible();
    await expect(review.locator('[data-hidden-character="PDF"]').first()).toBeVisible();
    expect(await review.innerText()).not.toContain("\u202e");
    await expect(review).toContainText("RLOdnuferPDF");
    await expect(page.getByLabel(/I acknowledge: body holds 2 hidden characters \(RLO, PDF\)/)).toHaveCount(1);
    await expect(page.getByTestId("approve-all")).toBeDisabled();
  });

  test("whitespace-only edits are marked on the review: a space moved in an imported tool's shell command, a space turned no-break", async ({ browser, page, baseURL }) => {
    test.setTimeout(120_000);
    const t = "75017";
    const origin = { origin: baseURL! };
    // An admin imports print_label with a depot command, makes an agent of its own that may call
    // it (the demo agent's allowlist is left alone), and grants it to Sam Senior; a supervisor
    // classifies the task as a delivery exception (the intent that permits print_label).
    const adminCtx = await browser.newContext({ storageState: STORAGE.admin });
    const admin = adminCtx.request;
    const imported = await admin.post("/api/admin/tools/import", {
      headers: origin,
      data: {
        source: "mcp_tools_list",
        label: "e2e hidden-text",
        payload: {
          tools: [
            {
              name: "print_label",
              title: "Print label",
              description: "Prints shipping labels at the depot, then runs the depot's clean-up command.",
              inputSchema: {
                type: "object",
                properties: { shipmentId: { type: "string" }, copies: { type: "integer", minimum: 1, maximum: 10 }, command: { type: "string", maxLength: 200 } },
                required: ["shipmentId", "copies"],
              },
            },
          ],
        },
      },
    });
    expect(imported.status(), await imported.text()).toBe(201);
    const agentRes = await admin.post("/api/admin/agents", { headers: origin, data: { name: `Label agent ${Date.now()}`, allowedTools: ["print_label", "send_reply"] } });
    expect(agentRes.status(), await agentRes.text()).toBe(201);
    const agentId = (await agentRes.json()).agent.id as string;
    const keyRes = await admin.post(`/api/admin/agents/${agentId}/keys`, { headers: origin });
    expect(keyRes.status(), await keyRes.text()).toBe(201);
    const agentKey = { authorization: `Bearer ${(await keyRes.json()).key}` };
    const grant = await admin.put("/api/admin/users/usr_senior/grants/print_label", { headers: origin, data: { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null } });
    expect(grant.status(), await grant.text()).toBe(200);
    await adminCtx.close();
    const supCtx = await browser.newContext({ storageState: STORAGE.supervisor });
    const revised = await supCtx.request.post(`/api/tasks/task_${t}/revisions`, { headers: origin, data: { comment: "A delivery exception: labels to reprint", contract: { intent: "delivery_exception", constraints: {} } } });
    expect(revised.status(), await revised.text()).toBe(201);
    await supCtx.close();

    const command = "rm -rf /srv/app/labels/ tmp";
    const reply = "We will print two labels today.";
    const id = await submit(
      page.request,
      t,
      [
        { id: "p1", tool: "print_label", args: { shipmentId: "sh_5670", copies: 2, command } },
        { id: "r1", tool: "send_reply", args: { ticketId: t, body: reply } },
      ],
      agentKey,
    );
    const approved = await page.request.post(`/api/runs/${id}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-ws-${id}` }, headers: origin });
    expect(approved.status(), await approved.text()).toBeLessThan(300);

    await open(page, `/runs/${id}`);
    await page.getByRole("button", { name: "Edit plan" }).click();
    // the space moves: before, /srv/app/labels/ and ./tmp; after, /srv/app itself and /labels/tmp
    await page.locator('[id="steps.0.args.command"]').fill("rm -rf /srv/app /labels/tmp");
    await page.locator('[id="steps.1.args.body"]').fill("We will print two\u00a0labels today.");
    await page.getByRole("button", { name: "Save edit" }).click();

    const review = page.getByRole("region", { name: /Your edit changed/ });
    const changes = review.getByTestId("whitespace-change");
    await expect(changes).toHaveCount(2);
    await expect(changes.nth(0)).toContainText("Only whitespace or hidden characters changed");
    await expect(changes.nth(0)).toContainText("rm␣-rf␣/srv/app/labels/␣tmp");
    await expect(changes.nth(0)).toContainText("rm␣-rf␣/srv/app␣/labels/tmp");
    await expect(changes.nth(1)).toContainText("Only whitespace or hidden characters changed");
    await expect(changes.nth(1)).toContainText("two␣labels");
    await expect(changes.nth(1)).toContainText("two⟨NBSP⟩labels");
    // both steps lost their approval: the edit needs re-approval, and says so
    await expect(review).toContainText(/Re-approval required for step 1 \(changed\), step 2 \(changed\)/);

    const stored = await (await page.request.get(`/api/runs/${id}`)).json();
    expect(stored.run.planVersion).toBe(2);
    expect(stored.run.steps.map((s: { args: { command?: string; body?: string } }) => s.args.command ?? s.args.body)).toEqual(["rm -rf /srv/app /labels/tmp", "We will print two\u00a0labels today."]);
  });
});
