import { test, expect, type APIRequestContext, type Page } from "@playwright/test";
import { openTaskWithPlan, STORAGE } from "./helpers";
import { signatureExportSchema, verifySignatureExport } from "../lib/signatures/verify-export";

// A signed approval in real Chromium with a virtual authenticator (Chrome DevTools Protocol): the
// senior registers a passkey, an admin adds a gate-policy rule that requires a signature for a
// $1,234.00–$1,236.00 refund on Alpine Outdoor (narrow: no other spec's step matches it; removed in
// `finally`), and the senior approves such a refund on the card, which says in words what the
// passkey signs. Then, through the API: the assertion replayed is signature_replayed, an assertion
// over the previous plan version after the amount changed is signature_mismatch, and an assertion
// by a removed passkey is refused. The task is opened through the ticketing door, so no other
// spec's runs are touched. A second test needs no rule of its own: the demo desk's seeded policy
// signs refunds of $1,500.00 and more, so an unsigned approval of one is signature_required and the
// passkey's signature approves it. The tests take turns (serial): each registers the senior's only
// passkey and removes it, and the first one needs the senior to have none at its end.

const RULE_NOTE = "e2e signed-approval: signed refund on Alpine";
type Rule = Record<string, unknown> & { id?: string; position?: number; note?: string };

async function livePolicy(request: APIRequestContext) {
  const res = await request.get("/api/admin/gate-policy");
  expect(res.status()).toBe(200);
  return (await res.json()).live as { version: number; rules: Rule[] };
}

/** Saves the live rules changed by `change` as a new version (again on a version conflict: specs share the e2e server). */
async function changePolicy(request: APIRequestContext, origin: string, change: (rules: Rule[]) => Rule[], note: string) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const live = await livePolicy(request);
    const rules = change(live.rules.map(({ id: _id, position: _p, ...r }) => r));
    const res = await request.put("/api/admin/gate-policy", { data: { baseVersion: live.version, rules, note }, headers: { origin } });
    if (res.status() === 200) return;
    if (res.status() !== 409) throw new Error(`gate policy: ${res.status()} ${await res.text()}`);
  }
  throw new Error("gate policy: five version conflicts in a row");
}

/**
 * Asks the page's authenticator (the virtual one) to sign `options` — the `options` of a signature
 * challenge — with navigator.credentials.get, and returns the assertion as JSON, base64url, as
 * @simplewebauthn/browser's startAuthentication does.
 */
async function assertInPage(page: Page, options: { challenge: string; allowCredentials?: { id: string; type: string }[]; rpId?: string; userVerification?: string; timeout?: number }) {
  return page.evaluate(async (o) => {
    const fromB64 = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
    const toB64 = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const cred = (await navigator.credentials.get({
      publicKey: {
        challenge: fromB64(o.challenge),
        rpId: o.rpId,
        allowCredentials: (o.allowCredentials ?? []).map((c) => ({ id: fromB64(c.id), type: "public-key" as const })),
        userVerification: (o.userVerification ?? "required") as UserVerificationRequirement,
        timeout: o.timeout,
      },
    })) as PublicKeyCredential;
    const r = cred.response as AuthenticatorAssertionResponse;
    return {
      id: cred.id,
      rawId: toB64(cred.rawId),
      type: "public-key" as const,
      response: {
        authenticatorData: toB64(r.authenticatorData),
        clientDataJSON: toB64(r.clientDataJSON),
        signature: toB64(r.signature),
        ...(r.userHandle ? { userHandle: toB64(r.userHandle) } : {}),
      },
      clientExtensionResults: {},
    };
  }, options);
}

test.use({ storageState: STORAGE.senior });
test.describe.configure({ mode: "serial" });

test("a signed refund: register a passkey, approve on the card that says what it signs; replayed, changed and removed are refused", async ({ page, browser, baseURL }, testInfo) => {
  const origin = baseURL!;
  const admin = await browser.newContext({ storageState: STORAGE.admin });
  const adminRequest = (await admin.newPage()).request;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
  let passkeyName: string | null = null;
  try {
    // 1. The senior registers a passkey from the account menu's page.
    await page.goto("/account/passkeys");
    passkeyName = `e2e signed approval ${testInfo.workerIndex}-${Date.now()}`;
    await page.getByLabel("Name (optional)").fill(passkeyName);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByText("Passkey registered.")).toBeVisible();
    await expect(page.getByRole("list", { name: "Passkeys" })).toContainText(passkeyName);

    // 2. The admin requires a signature for exactly this account, tool and amount band.
    await changePolicy(
      adminRequest,
      origin,
      (rules) => [
        ...rules,
        { tool: "issue_refund", accountId: "acc_alpine", minAmountMinor: 123400, maxAmountMinor: 123600, decision: "one", authorMayApprove: true, requiredFields: ["title", "evidence", "risk", "stopCondition"], requireSignature: true, note: RULE_NOTE },
      ],
      "e2e: a signed refund on Alpine",
    );

    // 3. A task of its own and the agent's plan: a $1,234.00 refund on in_74701.
    const ticketId = `e2e-signed-${testInfo.workerIndex}-${Date.now()}`;
    const refund = {
      id: "refund",
      tool: "issue_refund",
      args: { invoiceId: "in_74701", amount: { minor: 123400, currency: "USD" }, reason: "Storage fee while the terminal was closed" },
      // the seeded gate policy asks these of every step that moves money
      title: "Refund the storage fee",
      evidence: [{ recordType: "invoice", recordId: "in_74701" }],
      risk: "Money leaves the company",
      stopCondition: "The fee was waived meanwhile",
      rationale: "The terminal was closed.",
    };
    const { runId } = await openTaskWithPlan(page.request, { ticketId, accountId: "acc_alpine", subject: "Storage fee while the terminal was closed", parts: [{ source: "system", text: "in_74701 carries a storage fee that accrued while the terminal was closed." }], contract: { intent: "refund_request", constraints: {} } }, [refund]);
    const runView = async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run as { planVersion: number; status: string; steps: { id: string; tool: string; args: Record<string, unknown>; requireSignature?: boolean }[] };
    const challenge = async (planVersion: number) => {
      const res = await page.request.post(`/api/runs/${runId}/signature-challenges`, { data: { planVersion, stepIds: "all" }, headers: { origin } });
      expect(res.status(), await res.text()).toBe(201);
      return (await res.json()) as { nonce: string; covers: string; options: Parameters<typeof assertInPage>[1] };
    };
    const approveByApi = (planVersion: number, signature: unknown) =>
      page.request.post(`/api/runs/${runId}/approvals`, { data: { planVersion, stepIds: "all", idempotencyKey: `e2e-${Date.now()}-${Math.random()}`, signature }, headers: { origin } });
    const editAmount = async (minor: number) => {
      const run = await runView();
      const steps = run.steps.map((s) => ({ ...refund, id: s.id, tool: s.tool, args: { ...s.args, amount: { minor, currency: "USD" } } }));
      const res = await page.request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: run.planVersion, steps }, headers: { origin } });
      expect(res.status(), await res.text()).toBe(201);
      return (await runView()).planVersion;
    };
    expect((await runView()).steps[0].requireSignature).toBe(true);

    // Without a signature nothing is approved.
    const unsigned = await page.request.post(`/api/runs/${runId}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-unsigned-${Date.now()}` }, headers: { origin } });
    expect([unsigned.status(), (await unsigned.json()).error.code]).toEqual([403, "signature_required"]);

    // An assertion over plan version 1 kept for later (signed by the same passkey, not used).
    const v1 = await challenge(1);
    const keptV1 = { nonce: v1.nonce, response: await assertInPage(page, v1.options) };

    // 4. The card: it says the step is signed; Approve shows what the passkey signs, then approves.
    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId("requires-signature-refund")).toContainText("Signed approval");
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let sent: { signature?: unknown } | null = null;
    await page.route(`**/api/runs/${runId}/approvals`, async (route) => {
      sent = route.request().postDataJSON();
      await held; // the card is photographed while the approval is on its way
      await route.continue();
    });
    await page.getByTestId("approve-all").click();
    const covers = page.getByTestId("signature-covers");
    await expect(covers).toContainText(`Your passkey signs: run ${runId}, plan version 1, and exactly this step as shown — step refund (issue_refund, $1,234.00, digest`);
    await expect(covers).toContainText("approved by Sam Senior");
    await expect.poll(() => sent).not.toBeNull();
    await covers.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath("signed-approval-card-1366.png") });
    release();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    await page.unroute(`**/api/runs/${runId}/approvals`);
    const used = (sent as { signature?: { nonce: string } } | null)?.signature;
    expect(used?.nonce).toBeTruthy();

    // 5. The amount changes (an edit: a new plan version; the approval is withdrawn).
    const v2 = await editAmount(123500);
    expect(v2).toBe(2);
    // the assertion the card sent, replayed: refused, nothing approved
    const replayed = await approveByApi(v2, used);
    expect([replayed.status(), (await replayed.json()).error.code]).toEqual([409, "signature_replayed"]);
    // an unused assertion over plan version 1 (the old amount): refused
    const stale = await approveByApi(v2, keptV1);
    const staleBody = await stale.json();
    expect([stale.status(), staleBody.error.code]).toEqual([403, "signature_mismatch"]);
    expect(staleBody.error.message).toContain("plan version 1");
    expect((await runView()).status).toBe("pending_review");

    // A refusal on the card is shown in the panel by code, and nothing typed is lost: the card
    // approving with the kept stale assertion is simulated by answering the card's request with it.
    await page.route(`**/api/runs/${runId}/approvals`, async (route) => {
      const body = route.request().postDataJSON();
      await route.continue({ postData: JSON.stringify({ ...body, signature: keptV1 }) });
    });
    await page.goto(`/runs/${runId}`);
    await page.getByTestId("approve-all").click();
    const refusal = page.getByTestId("approve-refusal");
    await expect(refusal).toHaveAttribute("data-code", "signature_mismatch");
    await expect(refusal).toContainText("Signature does not match: The signature covers plan version 1");
    await expect(page.getByTestId("signature-covers")).toContainText("plan version 2");
    await page.unroute(`**/api/runs/${runId}/approvals`);

    // 6. On a phone: the card at plan version 2 says what it signs, and approves.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/runs/${runId}`);
    let release390: () => void = () => {};
    const held390 = new Promise<void>((r) => (release390 = r));
    await page.route(`**/api/runs/${runId}/approvals`, async (route) => {
      await held390;
      await route.continue();
    });
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("signature-covers")).toContainText(`run ${runId}, plan version 2`);
    await expect(page.getByTestId("signature-covers")).toContainText("$1,235.00");
    await page.getByTestId("signature-covers").scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath("signed-approval-card-390.png") });
    release390();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    await page.unroute(`**/api/runs/${runId}/approvals`);

    // The run's audit export carries both signatures Chromium made; checked offline (as
    // `npm run verify-approvals -- --file` does), each verifies for its own plan version and digest.
    const supervisor = await browser.newContext({ storageState: STORAGE.supervisor });
    const audit = await (await supervisor.request.get(`/api/runs/${runId}/audit`)).json();
    await supervisor.close();
    const checks = await verifySignatureExport(signatureExportSchema.parse(audit));
    expect(checks.map((c) => [c.stepId, c.planVersion, c.approverId, c.fault])).toEqual([
      ["refund", 1, "usr_senior", null],
      ["refund", 2, "usr_senior", null],
    ]);

    // 7. A removed credential: an assertion made before the passkey was removed is refused after.
    const v3 = await editAmount(123450); // within the rule's band (its upper bound is exclusive)
    expect((await runView()).steps[0].requireSignature).toBe(true);
    const c3 = await challenge(v3);
    const beforeRemoval = { nonce: c3.nonce, response: await assertInPage(page, c3.options) };
    await page.goto("/account/passkeys");
    await page.getByRole("button", { name: `Remove ${passkeyName}` }).click();
    await expect(page.getByText("Passkey removed.")).toBeVisible();
    passkeyName = null;
    const removed = await approveByApi(v3, beforeRemoval);
    const removedBody = await removed.json();
    expect([removed.status(), removedBody.error?.code], JSON.stringify(removedBody).slice(0, 300)).toEqual([403, "signature_mismatch"]);
    expect(removedBody.error.message).toContain("removed");
    // and without a passkey no challenge is given: signature_required
    const none = await page.request.post(`/api/runs/${runId}/signature-challenges`, { data: { planVersion: v3, stepIds: "all" }, headers: { origin } });
    expect([none.status(), (await none.json()).error.code]).toEqual([403, "signature_required"]);
    expect((await runView()).status).toBe("pending_review");
  } finally {
    // the senior's passkey and the rule go, so other specs see the desk as they expect
    if (passkeyName) {
      await page.goto("/account/passkeys");
      const remove = page.getByRole("button", { name: `Remove ${passkeyName}` });
      if (await remove.count()) await remove.click();
    }
    await changePolicy(adminRequest, origin, (rules) => rules.filter((r) => r.note !== RULE_NOTE), "e2e: the signed refund rule removed");
    await admin.close();
  }
});

test("the demo desk's own policy: a $1,500.00 refund needs the approver's passkey, and the signature approves it", async ({ page, baseURL }, testInfo) => {
  const origin = baseURL!;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
  const passkeyName = `e2e demo policy ${testInfo.workerIndex}-${Date.now()}`;
  try {
    const ticketId = `e2e-demo-signed-${testInfo.workerIndex}-${Date.now()}`;
    const refund = {
      id: "refund",
      tool: "issue_refund",
      args: { invoiceId: "in_74501", amount: { minor: 150000, currency: "USD" }, reason: "Storage charged twice" },
      title: "Refund the double storage charge",
      evidence: [{ recordType: "invoice", recordId: "in_74501" }],
      risk: "Money leaves the company",
      stopCondition: "The charge was credited meanwhile",
    };
    const { runId } = await openTaskWithPlan(page.request, { ticketId, accountId: "acc_hanse", subject: "Storage charged twice", parts: [{ source: "system", text: "in_74501 carries storage that was charged twice." }], contract: { intent: "refund_request", constraints: {} } }, [refund]);
    const run = (await (await page.request.get(`/api/runs/${runId}`)).json()).run;
    expect(run.steps[0].requireSignature).toBe(true); // the seeded rule, no rule of this spec

    // Without a signature: 403 signature_required, nothing approved.
    const unsigned = await page.request.post(`/api/runs/${runId}/approvals`, { data: { planVersion: run.planVersion, stepIds: "all", idempotencyKey: `e2e-demo-unsigned-${Date.now()}` }, headers: { origin } });
    expect([unsigned.status(), (await unsigned.json()).error.code]).toEqual([403, "signature_required"]);
    expect((await (await page.request.get(`/api/runs/${runId}`)).json()).run.status).toBe("pending_review");

    // The senior registers a passkey from the account menu's page, and approves on the card.
    await page.goto("/account/passkeys");
    await page.getByLabel("Name (optional)").fill(passkeyName);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByText("Passkey registered.")).toBeVisible();
    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId("requires-signature-refund")).toContainText("Signed approval");
    // What the passkey signs shows from the challenge until the approval answers: the approval is
    // held until the card has been read (a virtual authenticator signs in no time).
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route(`**/api/runs/${runId}/approvals`, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("signature-covers")).toContainText("$1,500.00");
    release();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    await page.unroute(`**/api/runs/${runId}/approvals`);
    const approved = (await (await page.request.get(`/api/runs/${runId}`)).json()).run;
    expect(approved.steps[0].approvals).toMatchObject({ required: 1, given: 1, approverIds: ["usr_senior"] });
  } finally {
    await page.goto("/account/passkeys");
    const remove = page.getByRole("button", { name: `Remove ${passkeyName}` });
    if (await remove.count()) {
      await remove.click();
      await expect(page.getByText("Passkey removed.")).toBeVisible();
    }
  }
});
