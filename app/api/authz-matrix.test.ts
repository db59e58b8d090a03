/**
 * The authorisation matrix: every declared endpoint (lib/api/endpoints.ts)
 * — each must have its route file and every route file a declaration, so a new endpoint fails this
 * test until it is declared and gets a row — called through its exported route handler with real
 * better-auth sessions, by each kind of caller: signed out, operator, senior, supervisor, admin,
 * agent key, integration key, disabled user, foreign origin. The expected answer comes from the
 * declaration's caller (`agent`, `integration`, `session` with roles), with per-endpoint
 * overrides where a grant or ownership — not the role — decides.
 * Each call asserts the exact status (and error code), and that a refusal wrote exactly one
 * `denied` audit event naming the endpoint and the caller when known, while an allowed call wrote
 * none. Then the grant ceilings at their boundary values (exactly the ceiling, one minor unit above)
 * for approving and authoring.
 */
import fs from "node:fs";
import path from "node:path";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "@/lib/demo/desk-data";
import { createApiKey, createUser, updateUser } from "@/lib/server/admin/admin";
import { createIntegrationKey, revokeIntegrationKey } from "@/lib/server/admin/integration-keys";
import { claimStep } from "@/lib/server/claims/claim-step";
import { applyDemoEffect } from "@/lib/server/demo/demo-effects";
import { reportOutcome } from "@/lib/server/claims/report-outcome";
import { prisma } from "@/lib/server/db/db";
import { loadGatePolicy } from "@/lib/server/gate-policy/load-gate-policy";
import { getIntentCatalogForAdmin } from "@/lib/server/tasks/intent-catalog-admin";
import { registerMcpUpstream } from "@/lib/server/tools/mcp-upstreams";
import { registerOidcProvider } from "@/lib/server/sso/oidc-providers";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { createDeskRule } from "@/lib/server/desk-rules/save-desk-rule";
import { suggestStep } from "@/lib/server/ownership/suggest-step";
import { submitRun } from "@/lib/server/runs/submit-run";
import { toRunView, type RunView } from "@/lib/server/plans/run-view";
import { loadRun } from "@/lib/server/plans/load-run";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_ID, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import type { Endpoint } from "@/lib/api/contract";
import { ENDPOINTS } from "@/lib/api/endpoints";
import { applyRecords } from "@/lib/server/records/apply-records";
import { loadViewer, type AgentCaller, type Viewer } from "@/lib/server/auth/session";
import { apiRequest, FOREIGN_ORIGIN, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { approveAllAs, prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import type { StepInput } from "@/lib/plan/schema";

// ── the routes: every declaration and its route file ─────────────────────────

const APP_DIR = path.resolve(__dirname, "..");
const API_DIR = path.resolve(__dirname);
type Method = Endpoint["method"];
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
/**
 * better-auth's own endpoints (sign-in/out) are its own; it checks their origin itself. The
 * benchmark's bare handler is the framework baseline (404 unless PLANDESK_BENCH=1), not the API.
 */
const NOT_DECLARED = new Set(["/api/auth/[...all]", "/api/bench/bare"]);

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? routeFiles(p) : e.name === "route.ts" ? [p] : [];
  });
}
/** "/api/runs/{runId}/edits" ↔ "/api/runs/[runId]/edits" (the route file's directory). */
const templateOf = (apiPath: string) => apiPath.replace(/\{(\w+)\}/g, "[$1]");
const fileTemplate = (file: string) => `/${path.relative(APP_DIR, path.dirname(file)).split(path.sep).join("/")}`;

const routes: { key: string; template: string; method: Method; handler: Handler; endpoint: Endpoint }[] = [];
for (const endpoint of ENDPOINTS) {
  const template = templateOf(endpoint.path);
  const mod = (await import(path.join(APP_DIR, template, "route.ts"))) as Record<string, unknown>;
  routes.push({ key: `${endpoint.method} ${template}`, template, method: endpoint.method, handler: mod[endpoint.method] as Handler, endpoint });
}
/**
 * The demo reset empties the database, so it cannot run between the other rows: it has its own
 * test at the end of this file, with the admin's call last.
 */
const OWN_TEST = new Set(["POST /api/demo/reset"]);
const mutatingRoutes = routes.filter((r) => r.method !== "GET" && !OWN_TEST.has(r.key));

// ── callers ───────────────────────────────────────────────────────────────────

const PRINCIPALS = ["signed_out", "operator", "senior", "supervisor", "admin", "agent", "integration", "disabled", "foreign_origin"] as const;
type Principal = (typeof PRINCIPALS)[number];
const USER_IDS = { operator: "usr_operator", senior: "usr_senior", supervisor: "usr_supervisor", admin: "usr_admin" } as const;

const SEED_NOW = new Date();
const cookies: Partial<Record<Principal, string>> = {};
const viewers: Record<keyof typeof USER_IDS, Viewer> = {} as never;
let disabledUserId = "";

function credentialsOf(who: Principal): Credentials {
  switch (who) {
    case "signed_out":
      return { origin: TEST_ORIGIN };
    case "agent":
      return { key: DEMO_AGENT_KEY }; // an agent sends no Origin
    case "integration":
      return { key: DEMO_INTEGRATION_KEY };
    case "foreign_origin":
      return { cookie: cookies.operator, origin: FOREIGN_ORIGIN };
    default:
      return { cookie: cookies[who], origin: TEST_ORIGIN };
  }
}

/** Who the `denied` event should name: a user id, the agent, or nobody (`anonymous`). */
function expectedActor(who: Principal): { kind: string; id: string | null } {
  switch (who) {
    case "signed_out":
    case "disabled": // their sessions were deleted when they were disabled: the cookie names nobody
      return { kind: "anonymous", id: null };
    case "agent":
      return { kind: "agent", id: DEMO_AGENT_ID };
    case "integration":
      return { kind: "integration", id: DEMO_INTEGRATION_ID };
    case "foreign_origin":
      return { kind: "user", id: USER_IDS.operator }; // the forged request rides on the operator's cookie
    default:
      return { kind: "user", id: USER_IDS[who] };
  }
}

// ── fixtures: a fresh target for every call ──────────────────────────────────

const demoAgent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const scenario = (key: string) => {
  const r = buildDemoDesk(SEED_NOW).runs.find((x) => x.key === key);
  if (!r) throw new Error(`no scenario ${key}`);
  return r;
};

async function freshRun(taskId: string, steps: StepInput[]): Promise<RunView> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  return (await submitRun(demoAgent, taskId, { taskRevision: task.revision, steps: withRequiredReasons(steps) }, null)).run;
}
const freshScenarioRun = (key: string) => {
  const s = scenario(key);
  return freshRun(`task_${s.ticketId}`, s.steps);
};
/** A one-note run: auto-gated, so approved by policy at once and claimable. */
const freshNoteRun = () => freshScenarioRun("note-75004");

async function claimed(run: RunView) {
  const step = run.steps[0];
  const { claim } = await claimStep(demoAgent, run.id, step.id, { digest: step.digest, taskRevision: run.boundTaskRevision }, null);
  return { step, token: claim.token };
}

const editedNote = (run: RunView, note: string) => run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.tool === "add_ticket_note" ? { ...s.args, note } : s.args }));

/** One edited run that executed (its note changed by the senior), made once: labelling it again is allowed. */
let labelTarget: string | null = null;
async function editedExecutedRun(): Promise<string> {
  if (labelTarget) return labelTarget;
  const run = await freshNoteRun();
  await submitEdit(viewers.senior, run.id, { baseVersion: 1, steps: editedNote(run, "Edited before the write.") });
  await approveAllAs(run.id, "usr_supervisor");
  const v = toRunView(await loadRun(run.id), new Date());
  for (const step of v.steps) {
    const { claim } = await claimStep(demoAgent, run.id, step.id, { digest: step.digest, taskRevision: v.boundTaskRevision }, null);
    await reportOutcome(demoAgent, run.id, step.id, { token: claim.token, status: "succeeded" });
  }
  labelTarget = run.id;
  return run.id;
}

type Call = { path: string; params: Record<string, string>; body?: unknown; headers?: Record<string, string> };
type Expect = [status: number, code?: string];
/** Tickets opened by the matrix's `POST /api/v1/tasks` row (each prepare opens a new one). */
let openedTickets = 0;

interface Spec {
  prepare: () => Promise<Call>;
  /** The success status, and answers that differ from what the declared caller implies (grants, ownership). */
  ok: number;
  override?: Partial<Record<Principal, Expect>>;
}

const U401: Expect = [401, "unauthorized"];
const F403: Expect = [403, "forbidden"];

/**
 * What `who` gets from `endpoint` by its declared caller alone: an agent endpoint admits only the
 * agent key (an integration key is unknown to it); an integration endpoint admits only the
 * integration key and refuses an agent key with 403; a session endpoint refuses keys and signed-out
 * callers (401), a mutating request from another origin (403 cross_origin) and a role it does not
 * list (403 forbidden).
 */
function expectedFor(endpoint: Endpoint, who: Principal, ok: number): Expect {
  const caller = endpoint.caller;
  if (caller.kind === "agent") return who === "agent" ? [ok] : U401;
  if (caller.kind === "integration") return who === "integration" ? [ok] : who === "agent" ? F403 : U401;
  if (caller.kind === "public") return [ok];
  if (who === "signed_out" || who === "agent" || who === "integration" || who === "disabled") return U401;
  if (who === "foreign_origin") return endpoint.method === "GET" ? expectedFor(endpoint, "operator", ok) : [403, "cross_origin"];
  const role = who === "senior" ? "operator" : who;
  return caller.roles.includes(role) ? [ok] : F403;
}

const SPECS: Record<string, Spec> = {
  // operator API: grants decide approving and authoring; the admin (no grants) is refused by grant
  "POST /api/runs/[runId]/approvals": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/approvals`, params: { runId: run.id }, body: { planVersion: 1, stepIds: "all", idempotencyKey: nanoid() } };
    },
    ok: 201,
  },
  // a signing challenge needs a passkey of the caller's: the desk's people each get one (a stored key; nothing signs here)
  "POST /api/runs/[runId]/signature-challenges": {
    prepare: async () => {
      for (const userId of Object.values(USER_IDS)) {
        if ((await prisma.passkey.count({ where: { userId } })) === 0) {
          await prisma.passkey.create({ data: { id: `pk_${nanoid(8)}`, userId, credentialID: nanoid(16), publicKey: "AQID", counter: 0, deviceType: "singleDevice", backedUp: false } });
        }
      }
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/signature-challenges`, params: { runId: run.id }, body: { planVersion: 1, stepIds: "all" } };
    },
    ok: 201,
  },
  "POST /api/runs/[runId]/rejections": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/rejections`, params: { runId: run.id }, body: { planVersion: 1, reason: "Not what the customer asked for." } };
    },
    ok: 201,
  },
  "POST /api/runs/[runId]/edits": {
    prepare: async () => {
      const run = await freshNoteRun();
      return { path: `/api/runs/${run.id}/edits`, params: { runId: run.id }, body: { baseVersion: 1, steps: editedNote(run, "Edited in the matrix.") } };
    },
    ok: 201,
  },
  "POST /api/runs/[runId]/edits/[version]/discard": {
    // The senior made the edit: only its editor or a supervisor may discard it.
    prepare: async () => {
      const run = await freshNoteRun();
      await submitEdit(viewers.senior, run.id, { baseVersion: 1, steps: editedNote(run, "Senior's edit.") });
      return { path: `/api/runs/${run.id}/edits/2/discard`, params: { runId: run.id, version: "2" } };
    },
    ok: 201,
    override: { operator: F403 }, // not the editor of the edit
  },
  "POST /api/runs/[runId]/steps/[stepId]/reconcile": {
    prepare: async () => {
      const run = await freshNoteRun();
      const { step, token } = await claimed(run);
      await reportOutcome(demoAgent, run.id, step.id, { token, status: "unknown", detail: "timeout" });
      return { path: `/api/runs/${run.id}/steps/${step.id}/reconcile`, params: { runId: run.id, stepId: step.id }, body: { resolution: "succeeded", note: "Checked the ticket system." } };
    },
    ok: 201,
  },
  "POST /api/tasks/[taskId]/revisions": {
    prepare: async () => ({ path: "/api/tasks/task_75020/revisions", params: { taskId: "task_75020" }, body: { comment: "Cold chain confirmation is part of done." } }),
    ok: 201,
  },
  "POST /api/runs/[runId]/undo": {
    // Who may ask is what this row checks: a run still waiting has nothing to undo, so the roles
    // allowed get the typed 409 (app/api/mcp/staged-gateway.test.ts has the undo itself).
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/undo`, params: { runId: run.id } };
    },
    ok: 409,
    override: { operator: [409, "nothing_to_undo"], senior: [409, "nothing_to_undo"], supervisor: [409, "nothing_to_undo"] },
  },
  // ownership: take, assign, hand-offs, suggestions, notifications
  "POST /api/runs/[runId]/take": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/take`, params: { runId: run.id } };
    },
    ok: 200,
  },
  "PUT /api/runs/[runId]/assignee": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/assignee`, params: { runId: run.id }, body: { assigneeId: "usr_senior" } };
    },
    ok: 200,
  },
  "POST /api/runs/[runId]/approval-requests": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/approval-requests`, params: { runId: run.id }, body: { toRole: "supervisor", note: "Please decide this one." } };
    },
    ok: 201,
  },
  "POST /api/runs/[runId]/park": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/park`, params: { runId: run.id }, body: { until: null } };
    },
    ok: 201,
  },
  "DELETE /api/runs/[runId]/park": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/park`, params: { runId: run.id } };
    },
    ok: 200,
  },
  "POST /api/runs/[runId]/suggestions": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/suggestions`, params: { runId: run.id }, body: { planVersion: 1, tool: "add_ticket_note", args: { ticketId: "75002", note: "Suggested in the matrix." } } };
    },
    ok: 201,
  },
  "POST /api/runs/[runId]/suggestions/[suggestionId]/accept": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      const s = await suggestStep(viewers.operator, run.id, { planVersion: 1, tool: "add_ticket_note", args: { ticketId: "75002", note: "Suggested in the matrix." } });
      return { path: `/api/runs/${run.id}/suggestions/${s.id}/accept`, params: { runId: run.id, suggestionId: s.id } };
    },
    ok: 201,
  },
  "POST /api/runs/[runId]/suggestions/[suggestionId]/decline": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      const s = await suggestStep(viewers.operator, run.id, { planVersion: 1, tool: "add_ticket_note", args: { ticketId: "75002", note: "Suggested in the matrix." } });
      return { path: `/api/runs/${run.id}/suggestions/${s.id}/decline`, params: { runId: run.id, suggestionId: s.id }, body: { reason: "Not needed." } };
    },
    ok: 201,
  },
  "POST /api/notifications/read": {
    prepare: async () => ({ path: "/api/notifications/read", params: {}, body: { ids: "all" } }),
    ok: 200,
  },
  // live: anyone who may open the run
  "POST /api/runs/[runId]/presence": {
    prepare: async () => {
      const run = await freshScenarioRun("resched-75002");
      return { path: `/api/runs/${run.id}/presence`, params: { runId: run.id }, body: { mode: "viewing" } };
    },
    ok: 200,
  },
  "POST /api/admin/webhooks/[deliveryId]/retry": {
    prepare: async () => {
      const id = `whd_${nanoid()}`;
      await prisma.webhookDelivery.create({ data: { id, event: "escalated", url: "http://127.0.0.1:9/hook", payload: { text: "t" }, status: "failed", attempts: 8, nextAttemptAt: new Date(), lastError: "refused" } });
      return { path: `/api/admin/webhooks/${id}/retry`, params: { deliveryId: id } };
    },
    ok: 200,
  },
  // admin API
  "POST /api/admin/users": {
    prepare: async () => ({ path: "/api/admin/users", params: {}, body: { email: `m-${nanoid(6)}@example.com`.toLowerCase(), name: "Matrix Person", role: "operator", password: "matrix-password-1" } }),
    ok: 201,
  },
  "PATCH /api/admin/users/[userId]": {
    prepare: async () => {
      const u = await createUser(viewers.admin, { email: `p-${nanoid(6)}@example.com`.toLowerCase(), name: "Patch Target", role: "operator", password: "matrix-password-1" });
      return { path: `/api/admin/users/${u.id}`, params: { userId: u.id }, body: { role: "supervisor" } };
    },
    ok: 200,
  },
  "PUT /api/admin/users/[userId]/grants/[tool]": {
    prepare: async () => {
      const u = await createUser(viewers.admin, { email: `g-${nanoid(6)}@example.com`.toLowerCase(), name: "Grant Target", role: "operator", password: "matrix-password-1" });
      return {
        path: `/api/admin/users/${u.id}/grants/issue_refund`,
        params: { userId: u.id, tool: "issue_refund" },
        body: { canApprove: true, approveLimit: { minor: 10000, currency: "USD" }, canAuthor: false, authorLimit: null },
      };
    },
    ok: 200,
  },
  "PUT /api/admin/passkey-requirements": {
    prepare: async () => ({ path: "/api/admin/passkey-requirements", params: {}, body: { role: "admin", required: false } }),
    ok: 200,
  },
  "POST /api/admin/agents": {
    prepare: async () => ({ path: "/api/admin/agents", params: {}, body: { name: "Matrix agent", allowedTools: ["add_ticket_note"] } }),
    ok: 201,
  },
  "PATCH /api/admin/agents/[agentId]": {
    prepare: async () => {
      const a = await prisma.agent.create({ data: { id: `agent_${nanoid(8)}`, name: "Matrix desk agent", allowedTools: ["add_ticket_note"] } });
      return { path: `/api/admin/agents/${a.id}`, params: { agentId: a.id }, body: { desk: "retail" } };
    },
    ok: 200,
  },
  "POST /api/admin/desks": {
    prepare: async () => ({ path: "/api/admin/desks", params: {}, body: { id: `matrix-${nanoid(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}`, name: "Matrix desk" } }),
    ok: 201,
  },
  "POST /api/admin/agents/[agentId]/keys": {
    prepare: async () => ({ path: `/api/admin/agents/${DEMO_AGENT_ID}/keys`, params: { agentId: DEMO_AGENT_ID } }),
    ok: 201,
  },
  "POST /api/admin/agents/[agentId]/keys/[keyId]/revoke": {
    prepare: async () => {
      const { apiKey } = await createApiKey(viewers.admin, DEMO_AGENT_ID);
      return { path: `/api/admin/agents/${DEMO_AGENT_ID}/keys/${apiKey.id}/revoke`, params: { agentId: DEMO_AGENT_ID, keyId: apiKey.id } };
    },
    ok: 200,
  },
  "POST /api/admin/integration-keys": {
    prepare: async () => ({ path: "/api/admin/integration-keys", params: {}, body: { name: "Matrix helpdesk" } }),
    ok: 201,
  },
  "POST /api/admin/integration-keys/[keyId]/revoke": {
    prepare: async () => {
      const { integrationKey } = await createIntegrationKey(viewers.admin, { name: "Matrix revoke target" });
      return { path: `/api/admin/integration-keys/${integrationKey.id}/revoke`, params: { keyId: integrationKey.id } };
    },
    ok: 200,
  },
  "POST /api/admin/tools/import": {
    prepare: async () => ({
      path: "/api/admin/tools/import",
      params: {},
      body: { source: "mcp_tools_list", label: "matrix", payload: { tools: [{ name: `matrix_${nanoid(6)}`, inputSchema: { type: "object", properties: { note: { type: "string" } } }, annotations: { readOnlyHint: true } }] } },
    }),
    ok: 201,
  },
  "PUT /api/admin/desks/[deskId]/intents": {
    prepare: async () => {
      const live = await getIntentCatalogForAdmin({ id: "usr_admin", role: "admin" }, "retail");
      return { path: "/api/admin/desks/retail/intents", params: { deskId: "retail" }, body: { baseDigest: live.digest, intents: live.intents, note: "matrix: same intents again" } };
    },
    ok: 200,
  },
  // a desk's upstream MCP servers: admins only (the import starts the demo desk's stdio carrier)
  "POST /api/admin/desks/[deskId]/mcp-servers": {
    prepare: async () => ({ path: "/api/admin/desks/retail/mcp-servers", params: { deskId: "retail" }, body: { transport: "http", name: `matrix-${nanoid(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}`, url: "http://127.0.0.1:9/mcp" } }),
    ok: 201,
  },
  "DELETE /api/admin/desks/[deskId]/mcp-servers/[upstreamId]": {
    prepare: async () => {
      const made = await registerMcpUpstream(viewers.admin, "retail", { transport: "http", name: `matrix-${nanoid(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}`, url: "http://127.0.0.1:9/mcp" });
      return { path: `/api/admin/desks/retail/mcp-servers/${made.id}`, params: { deskId: "retail", upstreamId: made.id } };
    },
    ok: 200,
  },
  // a desk's OpenID Connect providers: admins only (nothing is fetched from the issuer on register)
  "POST /api/admin/desks/[deskId]/oidc-providers": {
    prepare: async () => ({ path: "/api/admin/desks/retail/oidc-providers", params: { deskId: "retail" }, body: { label: "Matrix IdP", issuer: "https://idp.example.test", clientId: "plandesk", clientSecret: "matrix-secret-0123456789" } }),
    ok: 201,
  },
  "DELETE /api/admin/desks/[deskId]/oidc-providers/[providerId]": {
    prepare: async () => {
      const made = await registerOidcProvider(viewers.admin, "retail", { label: "Matrix IdP", issuer: "https://idp.example.test", clientId: "plandesk", clientSecret: "matrix-secret-0123456789" });
      return { path: `/api/admin/desks/retail/oidc-providers/${made.id}`, params: { deskId: "retail", providerId: made.id } };
    },
    ok: 200,
  },
  // called by the identity provider, not by people: no session or key (public); the logout token
  // is the credential, so without a valid one every caller alike gets 400 and nothing ends
  // (app/api/auth/oidc/backchannel-logout.test.ts signs real ones)
  "POST /api/auth/oidc/backchannel-logout/[providerId]": {
    prepare: async () => ({ path: "/api/auth/oidc/backchannel-logout/oidc_matrix", params: { providerId: "oidc_matrix" }, body: { logout_token: "not-a-jwt" } }),
    ok: 400,
    override: Object.fromEntries(PRINCIPALS.map((p) => [p, [400, "bad_request"] as Expect])),
  },
  "POST /api/admin/desks/[deskId]/mcp-servers/[upstreamId]/import": {
    prepare: async () => ({ path: "/api/admin/desks/freight/mcp-servers/mcp_demo_carrier/import", params: { deskId: "freight", upstreamId: "mcp_demo_carrier" } }),
    ok: 201,
  },
  "PUT /api/admin/desks/[deskId]/record-kinds/[kind]": {
    prepare: async () => {
      const current = await prisma.recordKind.findUnique({ where: { desk_kind: { desk: "retail", kind: "matrix_kind" } }, select: { version: true } });
      const body = { schema: { type: "object", properties: { ref: { type: "string" } }, required: ["ref"] }, roles: { title: "ref" }, baseVersion: current?.version ?? 0, note: "matrix: a kind declared again" };
      return { path: "/api/admin/desks/retail/record-kinds/matrix_kind", params: { deskId: "retail", kind: "matrix_kind" }, body };
    },
    ok: 200,
  },
  "PUT /api/admin/gate-policy": {
    prepare: async () => {
      const live = await loadGatePolicy(prisma);
      return { path: "/api/admin/gate-policy", params: {}, body: { baseVersion: live.version, rules: live.rules.map(({ id: _i, position: _p, ...r }) => r), note: "matrix: same rules again" } };
    },
    ok: 200,
  },
  // desk rules: supervisors and admins (a guidance rule on retail: no validation elsewhere changes)
  "POST /api/desk-rules": {
    prepare: async () => ({ path: "/api/desk-rules", params: {}, body: { desk: "retail", severity: "warning", description: "Matrix guidance", rule: { kind: "guidance", tool: "send_reply" }, note: "matrix" } }),
    ok: 201,
  },
  "PUT /api/desk-rules/[ruleId]": {
    prepare: async () => {
      const made = await createDeskRule(viewers.supervisor, { desk: "retail", severity: "warning", description: "Matrix guidance", rule: { kind: "guidance", tool: "send_reply" }, note: "matrix" });
      return { path: `/api/desk-rules/${made.id}`, params: { ruleId: made.id }, body: { baseVersion: 1, severity: "warning", description: "Matrix guidance, saved", rule: made.rule, enabled: true, note: "matrix save" } };
    },
    ok: 200,
  },
  "POST /api/admin/gate-policy/dry-run": {
    prepare: async () => ({ path: "/api/admin/gate-policy/dry-run", params: {}, body: { rules: [], lastRuns: 5 } }),
    ok: 200,
  },
  "PUT /api/admin/agents/[agentId]/allowed-tools": {
    prepare: async () => ({ path: `/api/admin/agents/${DEMO_AGENT_ID}/allowed-tools`, params: { agentId: DEMO_AGENT_ID }, body: { allowedTools: [...DEMO_AGENT_TOOLS] } }),
    ok: 200,
  },
  "PUT /api/admin/agents/[agentId]/executes-tools": {
    prepare: async () => ({ path: `/api/admin/agents/${DEMO_AGENT_ID}/executes-tools`, params: { agentId: DEMO_AGENT_ID }, body: { executesTools: null } }),
    ok: 200,
  },
  // agent API: an agent key and nothing else
  "POST /api/v1/tasks/[taskId]/runs": {
    prepare: async () => {
      const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75004" } });
      return { path: `/api/v1/tasks/${task.id}/runs`, params: { taskId: task.id }, body: { taskRevision: task.revision, steps: scenario("note-75004").steps } };
    },
    ok: 201,
  },
  "POST /api/v1/runs/[runId]/steps/[stepId]/claim": {
    prepare: async () => {
      const run = await freshNoteRun();
      const step = run.steps[0];
      return { path: `/api/v1/runs/${run.id}/steps/${step.id}/claim`, params: { runId: run.id, stepId: step.id }, body: { digest: step.digest, taskRevision: run.boundTaskRevision } };
    },
    ok: 200,
  },
  // Plandesk's MCP endpoint: a JSON-RPC tools/list (the agent's desk tools; none imported here)
  "POST /api/mcp": {
    prepare: async () => ({ path: "/api/mcp", params: {}, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }),
    ok: 200,
  },
  "POST /api/v1/claims/[token]/fence": {
    prepare: async () => {
      const run = await freshNoteRun();
      const { token } = await claimed(run);
      return { path: `/api/v1/claims/${token}/fence`, params: { token } };
    },
    ok: 200,
  },
  "POST /api/v1/runs/[runId]/steps/[stepId]/outcome": {
    prepare: async () => {
      const run = await freshNoteRun();
      const { step, token } = await claimed(run);
      return { path: `/api/v1/runs/${run.id}/steps/${step.id}/outcome`, params: { runId: run.id, stepId: step.id }, body: { token, status: "succeeded" } };
    },
    ok: 200,
  },
  "POST /api/v1/tasks": {
    // a new ticket each time, so the allowed call creates (201) rather than replays
    prepare: async () => {
      const ticketId = `authz_${++openedTickets}`;
      return { path: "/api/v1/tasks", params: {}, body: { ticketId, accountId: "acc_fjord", subject: "Opened by the integration", parts: [{ source: "customer_message", text: "Where is my pallet?" }] } };
    },
    ok: 201,
  },
  "POST /api/v1/tasks/[taskId]/revisions": {
    prepare: async () => ({ path: "/api/v1/tasks/task_75019/revisions", params: { taskId: "task_75019" }, body: { comment: "Booking reference added." } }),
    ok: 201,
  },
  "POST /api/v1/tasks/[taskId]/events": {
    prepare: async () => ({ path: "/api/v1/tasks/task_75019/events", params: { taskId: "task_75019" }, body: { type: "customer_replied", detail: "Thanks." } }),
    ok: 201,
  },
  // the records door (the demo integration key is bound to no desk: it names the desk)
  "PUT /api/v1/records/[kind]/[id]": {
    prepare: async () => {
      const id = `acc_matrix_${nanoid(8)}`;
      return { path: `/api/v1/records/account/${id}?desk=freight`, params: { kind: "account", id }, body: { name: "Matrix account", sourceVersion: 1, sourceUpdatedAt: "2026-03-01T10:00:00Z" } };
    },
    ok: 200,
  },
  "DELETE /api/v1/records/[kind]/[id]": {
    prepare: async () => {
      const id = `acc_matrix_${nanoid(8)}`;
      await applyRecords("freight", [{ op: "put", kind: "account", id, fields: { name: "Matrix account" }, sourceVersion: 1, sourceUpdatedAt: new Date("2026-03-01T10:00:00Z") }]);
      return { path: `/api/v1/records/account/${id}?desk=freight&sourceVersion=2&sourceUpdatedAt=2026-03-01T11:00:00Z`, params: { kind: "account", id } };
    },
    ok: 200,
  },
  "POST /api/v1/records/batch": {
    prepare: async () => ({
      path: "/api/v1/records/batch?desk=freight",
      params: {},
      body: { kind: "account", id: `acc_matrix_${nanoid(8)}`, name: "Matrix account", sourceVersion: 1, sourceUpdatedAt: "2026-03-01T10:00:00Z" },
      headers: { "content-type": "application/x-ndjson" },
    }),
    ok: 200,
  },
  "PUT /api/runs/[runId]/outcome-label": {
    prepare: async () => {
      const id = await editedExecutedRun();
      return { path: `/api/runs/${id}/outcome-label`, params: { runId: id }, body: { label: "same", reason: "The edit changed nothing that matters." } };
    },
    ok: 200,
  },
  "POST /api/demo/scenarios/[name]": {
    prepare: async () => ({ path: "/api/demo/scenarios/reference-case", params: { name: "reference-case" } }),
    ok: 201,
  },
  "POST /api/v1/demo/effects": {
    prepare: async () => {
      const run = await freshNoteRun();
      const { step, token } = await claimed(run);
      return { path: "/api/v1/demo/effects", params: {}, body: { runId: run.id, stepId: step.id, token } };
    },
    ok: 200,
  },
  "POST /api/v1/demo/effects/promote": {
    prepare: async () => {
      const run = await freshNoteRun();
      const { step, token } = await claimed(run);
      await applyDemoEffect(demoAgent, { runId: run.id, stepId: step.id, token, stage: true });
      return { path: "/api/v1/demo/effects/promote", params: {}, body: { runId: run.id } };
    },
    ok: 200,
  },
};

// ── helpers ───────────────────────────────────────────────────────────────────

const lastSeq = async () => (await prisma.auditEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;
const countedRefusals = async () => (await prisma.refusalCount.aggregate({ _sum: { count: true } }))._sum.count ?? 0;
const deniedSince = (seq: number) => prisma.auditEvent.findMany({ where: { type: "denied", seq: { gt: seq } }, orderBy: { seq: "asc" } });

async function call(route: { method: Method; handler: Handler }, c: Call, creds: Credentials): Promise<{ status: number; body: Record<string, unknown> }> {
  const req = apiRequest(route.method, c.path, creds, c.body);
  for (const [k, v] of Object.entries(c.headers ?? {})) req.headers.set(k, v);
  const res = await route.handler(req, routeCtx(c.params));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Calls `route` as `who` against a fresh target; asserts the status, code and the denial audit trail. */
async function expectCall(route: { method: Method; handler: Handler; key: string; endpoint: Endpoint }, spec: Spec, who: Principal) {
  const c = await spec.prepare();
  const [status, code] = spec.override?.[who] ?? expectedFor(route.endpoint, who, spec.ok);
  // Every call is the first refusal of its minute: a refused credential is audited once per
  // (minute, key or person, route, code) and counted after (app/api/auth-refusals.test.ts), and
  // principals share people (a cookie alone, the same cookie from a foreign origin).
  await prisma.refusalCount.deleteMany({});
  const before = await lastSeq();
  const countedBefore = await countedRefusals();
  const { status: got, body } = await call(route, c, credentialsOf(who));
  expect({ who, status: got, code: (body.error as { code?: string } | undefined)?.code }).toEqual({
    who,
    status,
    code: status >= 400 ? code : undefined,
  });
  const denied = await deniedSince(before);
  if ((status === 401 || status === 403) && expectedActor(who).kind === "anonymous") {
    // nobody identified: counted per (address, route, minute), not one audit event each
    expect(denied, `${route.key} as ${who}: no audit event for an unidentified caller`).toHaveLength(0);
    expect(await countedRefusals(), `${route.key} as ${who}: the refusal is counted`).toBe(countedBefore + 1);
  } else if (status === 401 || status === 403) {
    expect(denied, `${route.key} as ${who}: exactly one denial on the record`).toHaveLength(1);
    const [e] = denied;
    expect({ kind: e.actorKind, id: e.actorId }).toEqual(expectedActor(who));
    expect((e.data as { endpoint?: string }).endpoint).toBe(`${route.method} ${c.path.split("?")[0]}`);
  } else {
    expect(denied, `${route.key} as ${who}: an allowed call records no denial`).toHaveLength(0);
  }
}

// ── the tests ─────────────────────────────────────────────────────────────────

beforeAll(async () => {
  await prepareTestDatabase(SEED_NOW);
  for (const [who, id] of Object.entries(USER_IDS) as [keyof typeof USER_IDS, string][]) {
    viewers[who] = (await loadViewer(id))!;
    const email = viewers[who].email;
    cookies[who] = await signInCookie(email);
  }
  // A person who signed in, then was disabled by an admin: their cookie must stop working at once.
  const dora = await createUser(viewers.admin, { email: "dora.disabled@example.com", name: "Dora Disabled", role: "operator", password: "dora-password-1" });
  disabledUserId = dora.id;
  cookies.disabled = await signInCookie("dora.disabled@example.com", "dora-password-1");
  await updateUser(viewers.admin, dora.id, { disabled: true });
});

describe("the matrix covers every declared endpoint", () => {
  it("every route file's handlers are declared, every declaration has its handler, every mutating one a row", async () => {
    const exported: string[] = [];
    for (const file of routeFiles(API_DIR)) {
      const template = fileTemplate(file);
      if (NOT_DECLARED.has(template)) continue;
      const mod = (await import(file)) as Record<string, unknown>;
      for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) if (typeof mod[m] === "function") exported.push(`${m} ${template}`);
    }
    expect(exported.sort()).toEqual(routes.map((r) => r.key).sort());
    expect([...OWN_TEST].filter((k) => !routes.some((r) => r.key === k))).toEqual([]);
    expect(routes.filter((r) => typeof r.handler !== "function").map((r) => r.key)).toEqual([]);
    expect(mutatingRoutes.length).toBeGreaterThanOrEqual(17);
    expect(mutatingRoutes.map((r) => r.key).filter((k) => !SPECS[k])).toEqual([]);
    expect(Object.keys(SPECS).filter((k) => !mutatingRoutes.some((r) => r.key === k))).toEqual([]);
  });

  it("the disabled user has no session left", async () => {
    expect(await prisma.session.count({ where: { userId: disabledUserId } })).toBe(0);
  });
});

describe.each(mutatingRoutes.filter((r) => SPECS[r.key]).map((r) => [r.key, r] as const))("%s", (_key, route) => {
  it.each(PRINCIPALS.map((p) => [p] as const))("as %s", async (who) => {
    await expectCall(route, SPECS[route.key], who);
  });
});

describe("reads", () => {
  const get = (key: string) => routes.find((r) => r.key === key)!;

  it.each([
    ["GET /api/admin/users", "/api/admin/users", {}],
    ["GET /api/admin/agents", "/api/admin/agents", {}],
    ["GET /api/admin/desks", "/api/admin/desks", {}],
    ["GET /api/admin/tools", "/api/admin/tools", {}],
    ["GET /api/admin/gate-policy", "/api/admin/gate-policy", {}],
    ["GET /api/admin/desks/[deskId]/intents", "/api/admin/desks/freight/intents", { deskId: "freight" }],
    ["GET /api/admin/desks/[deskId]/mcp-servers", "/api/admin/desks/freight/mcp-servers", { deskId: "freight" }],
    ["GET /api/admin/desks/[deskId]/oidc-providers", "/api/admin/desks/freight/oidc-providers", { deskId: "freight" }],
    ["GET /api/admin/desks/[deskId]/record-kinds", "/api/admin/desks/freight/record-kinds", { deskId: "freight" }],
    // declared by the matrix's PUT row above
    ["GET /api/admin/desks/[deskId]/record-kinds/[kind]", "/api/admin/desks/retail/record-kinds/matrix_kind", { deskId: "retail", kind: "matrix_kind" }],
    ["GET /api/admin/integration-keys", "/api/admin/integration-keys", {}],
    ["GET /api/admin/passkey-requirements", "/api/admin/passkey-requirements", {}],
    ["GET /api/admin/users/[userId]", "/api/admin/users/usr_operator", { userId: "usr_operator" }],
  ] as const)("%s: admin only; a refused read by a signed-in person is on the record", async (key, p, params) => {
    const route = get(key);
    expect(route).toBeDefined();
    for (const who of ["operator", "senior", "supervisor"] as const) {
      const before = await lastSeq();
      const res = await call(route, { path: p, params }, { cookie: cookies[who] });
      expect(res.status).toBe(403);
      const denied = await deniedSince(before);
      expect(denied).toHaveLength(1);
      expect(denied[0].actorId).toBe(USER_IDS[who]);
    }
    const ok = await call(route, { path: p, params }, { cookie: cookies.admin });
    expect(ok.status).toBe(200);
  });

  it.each([
    ["GET /api/health/live", "/api/health/live", { status: "live" }],
    ["GET /api/health/ready", "/api/health/ready", { status: "ready" }],
  ] as const)("%s: public — every caller gets the same 200, nothing on the record", async (key, p, body) => {
    const route = get(key);
    expect(route.endpoint.caller).toEqual({ kind: "public" });
    for (const who of PRINCIPALS) {
      const before = await lastSeq();
      const res = await call(route, { path: p, params: {} }, credentialsOf(who));
      expect({ who, status: res.status, body: res.body }).toEqual({ who, status: 200, body });
      expect(await deniedSince(before), who).toHaveLength(0);
    }
  });

  it("a signed-out read is refused (401) without a record; an agent key on the operator API is recorded", async () => {
    const route = get("GET /api/runs");
    let before = await lastSeq();
    expect((await call(route, { path: "/api/runs", params: {} }, {})).status).toBe(401);
    expect(await deniedSince(before)).toHaveLength(0);
    before = await lastSeq();
    expect((await call(route, { path: "/api/runs", params: {} }, { key: DEMO_AGENT_KEY })).status).toBe(401);
    const denied = await deniedSince(before);
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "agent", actorId: DEMO_AGENT_ID });
  });

  it("a session cookie on the agent API is refused (401) and recorded with the person it belongs to", async () => {
    const route = get("GET /api/v1/tasks");
    const before = await lastSeq();
    expect((await call(route, { path: "/api/v1/tasks", params: {} }, { cookie: cookies.supervisor })).status).toBe(401);
    const denied = await deniedSince(before);
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "user", actorId: USER_IDS.supervisor });
    expect(denied[0].data).toMatchObject({ missing: { kind: "agent_key" }, credential: "session_cookie" });
  });
});

describe("decisions need decision authority (issue #13)", () => {
  const rejections = () => routes.find((r) => r.key === "POST /api/runs/[runId]/rejections")!;
  const reconcile = () => routes.find((r) => r.key === "POST /api/runs/[runId]/steps/[stepId]/reconcile")!;
  it("an operator with no approve grant for any of the run's tools may not reject it (403, audited); an admin may not; a supervisor may", async () => {
    await createUser(viewers.admin, { email: "nora.nogrants@example.com", name: "Nora Nogrants", role: "operator", password: "nora-password-1" });
    const nora = await signInCookie("nora.nogrants@example.com", "nora-password-1");
    for (const [who, creds, expected] of [
      ["operator without grants", { cookie: nora, origin: TEST_ORIGIN }, 403],
      ["admin", credentialsOf("admin"), 403],
      ["supervisor", credentialsOf("supervisor"), 201],
    ] as const) {
      const run = await freshScenarioRun("resched-75002");
      const before = await lastSeq();
      const res = await call(rejections(), { path: `/api/runs/${run.id}/rejections`, params: { runId: run.id }, body: { planVersion: 1, reason: "Not for this desk." } }, creds);
      expect({ who, status: res.status }).toEqual({ who, status: expected });
      expect(await deniedSince(before), `${who}: denials on the record`).toHaveLength(expected === 403 ? 1 : 0);
      expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe(expected === 403 ? run.status : "rejected");
    }
  });

  it("reconciling an unknown outcome is the supervisor's: operator, senior and admin are refused (403, audited), nothing recorded", async () => {
    for (const who of ["operator", "senior", "admin", "supervisor"] as const) {
      const spec = SPECS["POST /api/runs/[runId]/steps/[stepId]/reconcile"];
      const c = await spec.prepare();
      const before = await lastSeq();
      const res = await call(reconcile(), c, credentialsOf(who));
      const step = await prisma.stepExecution.findFirst({ where: { runId: c.params.runId, stepId: c.params.stepId } });
      if (who === "supervisor") {
        expect(res.status).toBe(201);
        expect(await deniedSince(before)).toHaveLength(0);
      } else {
        expect({ who, status: res.status }).toEqual({ who, status: 403 });
        expect(await deniedSince(before)).toHaveLength(1);
        expect(step?.status, `${who}: the unknown outcome stays unknown`).toBe("unknown");
      }
    }
  });

  it("a revoked integration key can no longer revise tasks (401, audited as the integration)", async () => {
    const { integrationKey, key } = await createIntegrationKey(viewers.admin, { name: "Soon revoked" });
    const route = routes.find((r) => r.key === "POST /api/v1/tasks/[taskId]/revisions")!;
    const c = { path: "/api/v1/tasks/task_75019/revisions", params: { taskId: "task_75019" }, body: { comment: "Before revoking." } };
    expect((await call(route, c, { key })).status).toBe(201);
    expect((await prisma.integrationKey.findUniqueOrThrow({ where: { id: integrationKey.id } })).lastUsedAt).not.toBeNull();
    await revokeIntegrationKey(viewers.admin, integrationKey.id);
    const before = await lastSeq();
    expect((await call(route, { ...c, body: { comment: "After revoking." } }, { key })).status).toBe(401);
    const denied = await deniedSince(before);
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "integration", actorId: integrationKey.id });
  });
});

describe("grant ceilings at their boundary values", () => {
  const approvals = () => routes.find((r) => r.key === "POST /api/runs/[runId]/approvals")!;
  const edits = () => routes.find((r) => r.key === "POST /api/runs/[runId]/edits")!;
  const FJORD = "task_75016"; // Fjordline Seafood: in_74403 open 1,200.00, in_74401 open 3,180.00 (USD)
  const note = { id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: "Goodwill for the late delivery." } };
  const refund = (invoiceId: string, minor: number) => ({ tool: "issue_refund", args: { invoiceId, amount: { minor, currency: "USD" }, reason: "Goodwill" } });

  async function approveRefund(who: "operator" | "senior", minor: number) {
    const run = await freshRun(FJORD, [note, { id: "s_refund", ...refund("in_74403", minor) }]);
    const before = await lastSeq();
    const res = await call(approvals(), { path: `/api/runs/${run.id}/approvals`, params: { runId: run.id }, body: { planVersion: 1, stepIds: ["s_refund"], idempotencyKey: nanoid() } }, credentialsOf(who));
    return { res, denied: await deniedSince(before), run };
  }

  it("the operator approves a refund of exactly their ceiling (500.00)", async () => {
    const { res, denied } = await approveRefund("operator", 50000);
    expect(res.status).toBe(201);
    expect(denied).toHaveLength(0);
  });

  it("the operator is refused one cent above (500.01): 403 approval_denied, audited with the ceiling", async () => {
    const { res, denied, run } = await approveRefund("operator", 50001);
    expect(res.status).toBe(403);
    expect((res.body.error as { code: string; message: string }).code).toBe("approval_denied");
    expect((res.body.error as { message: string }).message).toContain("$500.00");
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ runId: run.id, actorKind: "user", actorId: "usr_operator" });
    expect(denied[0].data).toMatchObject({
      action: "approve",
      tool: "issue_refund",
      missing: { code: "over_limit", limit: { minor: 50000, currency: "USD" }, amount: { minor: 50001, currency: "USD" } },
    });
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: "s_refund" } })).toBe(0);
  });

  async function authorRefund(who: "senior" | "operator", minor: number) {
    const run = await freshRun(FJORD, [note]);
    const steps = [...run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args })), ...withRequiredReasons([{ id: "new-refund", ...refund("in_74401", minor) }])];
    const before = await lastSeq();
    const res = await call(edits(), { path: `/api/runs/${run.id}/edits`, params: { runId: run.id }, body: { baseVersion: 1, steps } }, credentialsOf(who));
    return { res, denied: await deniedSince(before), run };
  }

  it("the senior authors a refund of exactly their ceiling (2,000.00)", async () => {
    const { res, denied } = await authorRefund("senior", 200000);
    expect(res.status).toBe(201);
    expect(denied).toHaveLength(0);
  });

  it("the senior is refused one cent above (2,000.01): 403 authorship_denied, audited, nothing stored", async () => {
    const { res, denied, run } = await authorRefund("senior", 200001);
    expect(res.status).toBe(403);
    expect((res.body.error as { code: string }).code).toBe("authorship_denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ runId: run.id, actorId: "usr_senior" });
    const issues = (denied[0].data as { issues: { details?: { denial?: string; limit?: unknown } }[] }).issues;
    expect(issues.some((i) => i.details?.denial === "over_limit")).toBe(true);
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(1);
  });

  it("approving does not imply authoring: the operator (approves up to 500.00) may not author even 0.01", async () => {
    const { res, denied } = await authorRefund("operator", 1);
    expect(res.status).toBe(403);
    expect((res.body.error as { code: string }).code).toBe("authorship_denied");
    expect(denied).toHaveLength(1);
  });
});

describe("POST /api/demo/reset (demo mode, admins only)", () => {
  const reset = () => routes.find((r) => r.key === "POST /api/demo/reset")!;
  it.each(PRINCIPALS.filter((p) => p !== "admin").map((p) => [p] as const))("as %s: refused", async (who) => {
    await expectCall(reset(), { prepare: async () => ({ path: "/api/demo/reset", params: {} }), ok: 200 }, who);
  });
  it("as admin, last: 200, the demo desk as seeded", async () => {
    const res = await call(reset(), { path: "/api/demo/reset", params: {} }, credentialsOf("admin"));
    expect(res.status).toBe(200);
    const seeded = (res.body.reset as { seeded: { runs: number } }).seeded;
    expect(seeded.runs).toBeGreaterThanOrEqual(buildDemoDesk(SEED_NOW).runs.length);
    // only the seeded runs are left, and the people an admin created are gone
    expect(await prisma.run.count({ where: { NOT: { idempotencyKey: { startsWith: "seed:" } } } })).toBe(0);
    expect(await prisma.user.findUnique({ where: { id: disabledUserId } })).toBeNull();
  });
});
