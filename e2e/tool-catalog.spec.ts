import { test, expect } from "@playwright/test";
import { STORAGE } from "./helpers";

// An admin imports an MCP server's tools (its tools/list result, pasted) in the console, allows one
// for the demo agent and grants it; the agent proposes it; an operator edits it in a typed form
// built from its JSON Schema, and a value outside the schema is refused at its field.
const toolsList = {
  tools: [
    {
      name: "book_inspection",
      title: "Book inspection",
      description: "Books a damage inspection of a shipment at the warehouse.",
      inputSchema: {
        type: "object",
        properties: {
          shipmentId: { type: "string", minLength: 1, description: "The shipment to inspect" },
          date: { type: "string", format: "date" },
          slot: { type: "string", enum: ["morning", "afternoon"] },
          inspectors: { type: "integer", minimum: 1, maximum: 4 },
          urgent: { type: "boolean" },
          contact: { type: "object", properties: { name: { type: "string", minLength: 1 }, phone: { type: "string" } }, required: ["name"] },
          checks: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 3 },
        },
        required: ["shipmentId", "date", "slot", "inspectors", "urgent", "contact", "checks"],
      },
      annotations: { destructiveHint: false },
    },
    { name: "lookup_carrier_status", inputSchema: { type: "object", properties: { shipmentId: { type: "string" } } }, annotations: { readOnlyHint: true } },
  ],
};

test.describe("tool catalog from an MCP tools/list", () => {
  test.setTimeout(120_000);

  test("admin imports, agent proposes, operator edits the typed form; the schema is enforced at the field", async ({ browser, baseURL, request }, testInfo) => {
    const adminCtx = await browser.newContext({ storageState: STORAGE.admin });
    const admin = await adminCtx.newPage();
    await admin.goto("/admin/tools");
    await admin.getByLabel("Where it comes from").fill("freight-ops MCP server 1.2");
    await admin.getByLabel("JSON").fill(JSON.stringify(toolsList, null, 2));
    await admin.getByRole("button", { name: "Import" }).click();
    await expect(admin.getByRole("status").filter({ hasText: "added book_inspection, lookup_carrier_status" })).toBeVisible();
    const table = admin.getByRole("table");
    await expect(table).toContainText("reversible · needs approval");
    await expect(table).toContainText("internal · auto-approved");
    const allow = admin.getByRole("form", { name: "Tools Freight desk agent may call" });
    await allow.getByLabel("book_inspection").check();
    await allow.getByRole("button", { name: /Save allowlist/ }).click();
    await expect(admin.getByText("Saved what Freight desk agent may call.")).toBeVisible();
    await admin.screenshot({ path: testInfo.outputPath("admin-tool-catalog.png"), fullPage: true });
    const grant = await admin.request.put("/api/admin/users/usr_senior/grants/book_inspection", {
      headers: { origin: baseURL! },
      data: { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null },
    });
    expect(grant.status()).toBe(200);
    await adminCtx.close();

    // The demo agent proposes the imported tool.
    const auth = { authorization: "Bearer pd_demo_agent_key" };
    const task = await (await request.get("/api/v1/tasks/task_74992", { headers: auth })).json();
    const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const submitted = await request.post("/api/v1/tasks/task_74992/runs", {
      headers: auth,
      data: {
        taskRevision: task.task.revision,
        steps: [{ id: "s_insp", tool: "book_inspection", args: { shipmentId: "sh_5540", date: day, slot: "morning", inspectors: 2, urgent: false, contact: { name: "Lena" }, checks: ["seals"] }, title: "Inspect the damaged pallets", rationale: "The customer reports broken cold seals." }],
      },
    });
    expect(submitted.status(), await submitted.text()).toBe(201);
    const run = (await submitted.json()).run;
    // the run records the catalog version it was validated against (another spec, e2e/hidden-text.spec.ts,
    // may import a tool in parallel, so it is not necessarily version 1)
    expect(run.catalogVersion).toBeGreaterThanOrEqual(1);

    const opCtx = await browser.newContext({ storageState: STORAGE.senior });
    const page = await opCtx.newPage();
    await page.goto(`/runs/${run.id}`);
    await expect(page.getByRole("heading", { name: /Inspect the damaged pallets/ })).toBeVisible();
    await expect(page.getByTestId("step-reasons-s_insp")).toContainText("broken cold seals");
    await page.getByRole("button", { name: "Edit plan" }).click();
    await expect(page.locator('[id="steps.0.args.date"]')).toHaveAttribute("type", "date");
    await expect(page.locator('[id="steps.0.args.urgent"]')).toHaveAttribute("type", "checkbox");
    await expect(page.locator('[id="steps.0.args.slot"]')).toHaveValue("morning");
    await page.locator('[id="steps.0.args.inspectors"]').fill("9");
    await page.locator('[id="steps.0.args.slot"]').selectOption("afternoon");
    await page.locator('[id="steps.0.args.contact.phone"]').fill("+47 22 00 00 00");
    await page.getByRole("button", { name: "Add checks" }).click();
    await page.locator('[id="steps.0.args.checks.1"]').fill("pallet wrap");
    await page.getByRole("button", { name: "Save edit" }).click();
    const inspectors = page.locator('[id="steps.0.args.inspectors"]');
    await expect(inspectors).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator('[id="steps.0.args.inspectors-error"]')).toContainText(/4/);
    await page.screenshot({ path: testInfo.outputPath("imported-tool-form.png"), fullPage: true });
    await inspectors.fill("3");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByRole("region", { name: /Your edit changed/ })).toBeVisible();

    const after = await (await page.request.get(`/api/v1/runs/${run.id}`, { headers: auth })).json();
    expect(after.run.steps[0].args).toMatchObject({ inspectors: 3, slot: "afternoon", contact: { name: "Lena", phone: "+47 22 00 00 00" }, checks: ["seals", "pallet wrap"] });
    expect(after.run.steps[0].title).toBe("Inspect the damaged pallets"); // reasons kept across the edit
    await opCtx.close();
  });
});
