/**
 * `GET /api/v1/guidance` and the desk-rule routes over HTTP (route handlers in process, this
 * file's own database): the agent key reads its own desk's rules only; people, the integration
 * key and no key are refused; supervisors and admins read and write rules, operators may not.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as guidance } from "./guidance/route";
import { GET as listRules, POST as createRule } from "../desk-rules/route";
import { GET as getRule, PUT as saveRule } from "../desk-rules/[ruleId]/route";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { prisma } from "@/lib/server/db/db";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

type Json = Record<string, any>;
const cookies: Record<string, string> = {};

async function send(handler: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>, method: string, path: string, creds: Credentials, body?: unknown, params: Record<string, string> = {}) {
  const res = await handler(apiRequest(method, path, creds, body), routeCtx(params));
  return { status: res.status, body: (await res.json()) as Json };
}
const as = (who: string): Credentials => ({ cookie: cookies[who], origin: TEST_ORIGIN });
const rule = (desk: string, description: string) => ({ desk, severity: "warning", description, rule: { kind: "step_requires_prior", tool: "send_reply", priorTool: "add_ticket_note" }, note: "from the recurring edit" });

beforeAll(async () => {
  await prepareTestDatabase();
  for (const who of ["operator", "supervisor", "admin"]) cookies[who] = await signInCookie(`${who}@plandesk.test`);
});

describe("desk rules over HTTP", () => {
  it("a supervisor makes one (201), reads it with its versions, saves it (200); a stale save is 409; an operator is 403", async () => {
    const made = await send(createRule, "POST", "/api/desk-rules", as("supervisor"), rule("freight", "A reply follows a ticket note"));
    expect(made.status).toBe(201);
    const id = made.body.rule.id as string;
    const got = await send(getRule, "GET", `/api/desk-rules/${id}`, as("admin"), undefined, { ruleId: id });
    expect(got.status).toBe(200);
    expect(got.body.versions).toHaveLength(1);
    const body = { baseVersion: 1, severity: "error", description: "A reply follows a ticket note", rule: made.body.rule.rule, enabled: true, note: "error now" };
    expect((await send(saveRule, "PUT", `/api/desk-rules/${id}`, as("supervisor"), body, { ruleId: id })).status).toBe(200);
    const stale = await send(saveRule, "PUT", `/api/desk-rules/${id}`, as("admin"), body, { ruleId: id });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: "stale_desk_rule", version: 2 } } });
    expect((await send(createRule, "POST", "/api/desk-rules", as("operator"), rule("freight", "Operators may not"))).status).toBe(403);
    expect((await send(listRules, "GET", "/api/desk-rules", as("operator"))).status).toBe(403);
    const listed = await send(listRules, "GET", "/api/desk-rules?desk=freight", as("supervisor"));
    expect(listed.body.rules.map((r: Json) => r.id)).toContain(id);
    expect((await send(getRule, "GET", "/api/desk-rules/dr_nothing", as("supervisor"), undefined, { ruleId: "dr_nothing" })).status).toBe(404);
  });
});

describe("GET /api/v1/guidance", () => {
  it("the agent key reads its own desk's rules; the retail agent never sees freight's", async () => {
    await send(createRule, "POST", "/api/desk-rules", as("supervisor"), rule("freight", "Freight: note before reply"));
    await send(createRule, "POST", "/api/desk-rules", as("supervisor"), rule("retail", "Retail: note before reply"));
    const freight = await send(guidance, "GET", "/api/v1/guidance", { key: DEMO_AGENT_KEY });
    expect(freight.status).toBe(200);
    expect(freight.body.desk).toBe("freight");
    expect(freight.body.rules.map((r: Json) => r.description)).toContain("Freight: note before reply");
    expect(freight.body.prompt).toContain("Freight: note before reply");
    expect(JSON.stringify(freight.body)).not.toContain("Retail:");
    const retail = await send(guidance, "GET", "/api/v1/guidance", { key: DEMO_RETAIL_AGENT_KEY });
    expect(retail.body.desk).toBe("retail");
    expect(retail.body.rules.map((r: Json) => r.description)).toEqual(["Retail: note before reply"]);
    expect(JSON.stringify(retail.body)).not.toContain("Freight");
  });

  it("a disabled rule is not in the guidance", async () => {
    const made = await send(createRule, "POST", "/api/desk-rules", as("supervisor"), rule("retail", "Retail: soon off"));
    const id = made.body.rule.id as string;
    await send(saveRule, "PUT", `/api/desk-rules/${id}`, as("supervisor"), { baseVersion: 1, severity: "warning", description: "Retail: soon off", rule: made.body.rule.rule, enabled: false, note: "off" }, { ruleId: id });
    const retail = await send(guidance, "GET", "/api/v1/guidance", { key: DEMO_RETAIL_AGENT_KEY });
    expect(retail.body.rules.map((r: Json) => r.description)).not.toContain("Retail: soon off");
  });

  it("people, the integration key and no key are refused; a refusal of a known caller is audited", async () => {
    expect((await send(guidance, "GET", "/api/v1/guidance", as("supervisor"))).status).toBe(401);
    const before = await prisma.auditEvent.count({ where: { type: "denied" } });
    expect((await send(guidance, "GET", "/api/v1/guidance", { key: DEMO_INTEGRATION_KEY })).status).toBe(401);
    expect(await prisma.auditEvent.count({ where: { type: "denied" } })).toBe(before + 1);
    expect((await send(guidance, "GET", "/api/v1/guidance", {})).status).toBe(401);
  });
});
