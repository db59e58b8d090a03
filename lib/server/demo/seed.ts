import { demoDeskGateRules } from "../../gate-policy/defaults";
import { toolCatalog } from "../../tools/builtin-tools";
import { seedGatePolicy } from "../gate-policy/seed-gate-policy";
import { hashPassword } from "better-auth/crypto";
import { addHours } from "date-fns";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { buildRetailDesk, RETAIL_DESK, RETAIL_INTENT_NAMES, retailContracts } from "../../demo/retail-desk";
import { DEFAULT_DESK } from "../../desk/desks";
import { builtinTools, toolNames } from "../../tools/builtin-tools";
import { prisma } from "../db/db";
import { submitRun } from "../runs/submit-run";
import { hashApiKey } from "../auth/api-keys";
import { toJsonColumn } from "../db/json-column";
import { formatISO } from "date-fns";
import { DEMO_INTENTS, demoContracts } from "../../task-contract/demo-catalog";
import { taskContractSchema } from "../../task-contract/schema";
import type { RecordInput } from "../../records/record-kinds";
import { applyRecords } from "../records/apply-records";
import { openTask } from "../tasks/open-task";
import { CARRIER_STDIO_SERVER } from "../tools/mcp-upstreams";
import { enableDemoGateway } from "./demo-gateway";

/** Demo sign-ins (docs/api.md "Demo desk"); exist only in demo mode. */
export const DEMO_PASSWORD = "plandesk-demo";
export const DEMO_AGENT_KEY = "pd_demo_agent_key";
export const DEMO_AGENT_ID = "agent_demo";
/** The demo ticketing integration's key (posts task revisions; docs/api.md "Demo desk"). */
export const DEMO_INTEGRATION_KEY = "pd_demo_integration_key";
export const DEMO_INTEGRATION_ID = "int_demo";
/** The retail desk's own agent (agents work one desk) and its key (demo mode only). */
export const DEMO_RETAIL_AGENT_KEY = "pd_demo_retail_agent_key";
export const DEMO_RETAIL_AGENT_ID = "agent_retail";

type DemoGrant = { tool: string; approve: boolean; approveLimit?: number; author: boolean; authorLimit?: number };

/** Built-in tools by grant class (lib/tools/<tool>/tool.ts `grantClass`): money tools carry ceilings. */
const MONEY_TOOLS = builtinTools().filter((t) => t.grantClass === "money").map((t) => t.name);
const PLAIN_TOOLS = builtinTools().filter((t) => t.grantClass === "plain").map((t) => t.name);

/** The demo users, their desk (absent: the default desk) and their grants (money limits in USD minor units). */
export const DEMO_USERS: { id: string; email: string; name: string; role: string; desk?: string; grants: DemoGrant[] }[] = [
  {
    id: "usr_operator",
    email: "operator@plandesk.test",
    name: "Olivia Operator",
    role: "operator",
    grants: [
      ...PLAIN_TOOLS.map((tool) => ({ tool, approve: true, author: true })),
      ...MONEY_TOOLS.map((tool) => ({ tool, approve: true, approveLimit: 50000, author: false })),
    ],
  },
  {
    id: "usr_senior",
    email: "senior@plandesk.test",
    name: "Sam Senior",
    role: "operator",
    grants: [
      ...PLAIN_TOOLS.map((tool) => ({ tool, approve: true, author: true })),
      ...MONEY_TOOLS.map((tool) => ({ tool, approve: true, approveLimit: 200000, author: true, authorLimit: 200000 })),
    ],
  },
  {
    id: "usr_supervisor",
    email: "supervisor@plandesk.test",
    name: "Sofia Supervisor",
    role: "supervisor",
    grants: [
      ...PLAIN_TOOLS.map((tool) => ({ tool, approve: true, author: true })),
      ...MONEY_TOOLS.map((tool) => ({ tool, approve: true, approveLimit: 1000000, author: true, authorLimit: 1000000 })),
    ],
  },
  { id: "usr_admin", email: "admin@plandesk.test", name: "Adam Admin", role: "admin", grants: [] },
  {
    id: "usr_retail",
    email: "retail@plandesk.test",
    name: "Rita Retail",
    role: "operator",
    desk: RETAIL_DESK.id,
    grants: [
      ...PLAIN_TOOLS.map((tool) => ({ tool, approve: true, author: true })),
      ...MONEY_TOOLS.map((tool) => ({ tool, approve: true, approveLimit: 50000, author: true, authorLimit: 50000 })),
    ],
  },
];

/** The freight desk's people who may approve and author the carrier's write (as every plain built-in tool). */
const DEMO_GATEWAY_PEOPLE = ["usr_operator", "usr_senior", "usr_supervisor"] as const;

/**
 * Seeds the demo freight desk relative to `now` (UTC). Idempotent: records are keyed by fixed
 * ids (upsert without overwriting state) and runs by the idempotency key `seed:<scenario>`, so
 * a rerun adds nothing. On a database where the demo carrier's tools were never imported it
 * starts the carrier (examples/carrier-mcp over stdio, about a second) to import them (see
 * demo-gateway.ts). Returns counts of what exists afterwards.
 */
export async function seedDemoDesk(now = new Date()) {
  const desk = buildDemoDesk(now);
  const retail = buildRetailDesk(now);
  for (const d of [{ id: DEFAULT_DESK, name: "Freight" }, RETAIL_DESK]) await prisma.desk.upsert({ where: { id: d.id }, create: d, update: {} });
  // The intent catalogs first: a task's contract is checked against its desk's catalog when it is opened.
  // The freight desk's intent catalog and each demo task's contract (the intent must be in the catalog).
  for (const [position, i] of DEMO_INTENTS.entries()) {
    await prisma.deskIntent.upsert({
      where: { desk_name: { desk: "freight", name: i.name } },
      create: { desk: "freight", name: i.name, label: i.label, description: i.description, permittedTools: toJsonColumn(i.permittedTools), position },
      update: {},
    });
  }
  // The retail desk's catalog: a subset of the demo intents (lib/demo/retail-desk.ts).
  for (const [position, name] of RETAIL_INTENT_NAMES.entries()) {
    const i = DEMO_INTENTS.find((x) => x.name === name)!;
    await prisma.deskIntent.upsert({
      where: { desk_name: { desk: RETAIL_DESK.id, name } },
      create: { desk: RETAIL_DESK.id, name, label: i.label, description: i.description, permittedTools: toJsonColumn(i.permittedTools), position },
      update: {},
    });
  }
  // Account data through the records door, as any team's systems of record send it (there is no
  // second way in): version 1 of every record; a rerun sends version 1 again and changes nothing.
  await loadDemoRecords(DEFAULT_DESK, desk, now);
  // The retail desk ships to the same ports: its own copy of their calendars.
  await loadDemoRecords(RETAIL_DESK.id, { ...retail, holidays: desk.holidays }, now);
  // Tickets through the ticketing integration's door: each opens its task at revision 1.
  const contracts = { ...demoContracts((n) => formatISO(addHours(now, 24 * n), { representation: "date" })), ...retailContracts() };
  const integration = { kind: "integration" as const, id: DEMO_INTEGRATION_ID };
  const tickets = [...desk.tickets.map((t) => ({ ...t, desk: DEFAULT_DESK })), ...retail.tickets.map((t) => ({ ...t, desk: RETAIL_DESK.id }))];
  for (const t of tickets) {
    // Keyed by desk and ticket (ticket ids are per desk): a rerun on a later day (other relative dates in a contract) opens nothing.
    if (await prisma.ticket.findUnique({ where: { desk_id: { desk: t.desk, id: t.id } }, select: { id: true } })) continue;
    const contract = contracts[t.id] ? taskContractSchema.parse(contracts[t.id]) : undefined;
    await openTask(
      { ticketId: t.id, accountId: t.accountId, subject: t.subject, parts: [{ source: "system", text: t.body }], ...(contract ? { contract } : {}) },
      integration,
      { desk: t.desk, at: addHours(now, -t.ageHours) },
    );
  }

  await prisma.agent.upsert({
    where: { id: DEMO_AGENT_ID },
    create: { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS].filter((t) => toolNames.includes(t)) },
    update: {},
  });
  await prisma.apiKey.upsert({
    where: { hash: hashApiKey(DEMO_AGENT_KEY) },
    create: { id: "key_demo", agentId: DEMO_AGENT_ID, hash: hashApiKey(DEMO_AGENT_KEY), prefix: DEMO_AGENT_KEY.slice(0, 8) },
    update: {},
  });
  await prisma.agent.upsert({
    where: { id: DEMO_RETAIL_AGENT_ID },
    create: { id: DEMO_RETAIL_AGENT_ID, name: "Retail desk agent", desk: RETAIL_DESK.id, allowedTools: [...DEMO_AGENT_TOOLS].filter((t) => toolNames.includes(t)) },
    update: {},
  });
  await prisma.apiKey.upsert({
    where: { hash: hashApiKey(DEMO_RETAIL_AGENT_KEY) },
    create: { id: "key_demo_retail", agentId: DEMO_RETAIL_AGENT_ID, hash: hashApiKey(DEMO_RETAIL_AGENT_KEY), prefix: DEMO_RETAIL_AGENT_KEY.slice(0, 8) },
    update: {},
  });

  await prisma.integrationKey.upsert({
    where: { hash: hashApiKey(DEMO_INTEGRATION_KEY) },
    create: { id: DEMO_INTEGRATION_ID, name: "Demo ticketing integration", hash: hashApiKey(DEMO_INTEGRATION_KEY), prefix: DEMO_INTEGRATION_KEY.slice(0, 8) },
    update: {},
  });

  for (const u of DEMO_USERS) {
    const existing = await prisma.user.findUnique({ where: { email: u.email } });
    if (existing) continue;
    const passwordHash = await hashPassword(DEMO_PASSWORD); // per user: its own salt
    await prisma.user.create({
      data: {
        id: u.id,
        email: u.email,
        name: u.name,
        role: u.role,
        desk: u.desk ?? DEFAULT_DESK,
        emailVerified: true,
        authAccounts: { create: { id: `${u.id}_cred`, accountId: u.id, providerId: "credential", password: passwordHash } },
        grants: {
          create: demoGrantRows(u),
        },
      },
    });
  }

  // The freight desk's upstream MCP server: the carrier shipped in examples/carrier-mcp (stdio),
  // registered, then made ready for the gateway as an admin would (demo-gateway.ts: its tools
  // imported, allowed for the demo agent, granted to the freight desk's people, permitted for
  // delivery exceptions) — once, on a database where it was never imported.
  const carrier = await prisma.mcpUpstream.upsert({
    where: { desk_name: { desk: DEFAULT_DESK, name: "carrier" } },
    create: { id: "mcp_demo_carrier", desk: DEFAULT_DESK, name: "carrier", transport: "stdio", command: CARRIER_STDIO_SERVER.command, args: [...CARRIER_STDIO_SERVER.args], createdById: "usr_admin" },
    update: {},
  });
  await enableDemoGateway({ upstreamId: carrier.id, agentId: DEMO_AGENT_ID, userIds: DEMO_GATEWAY_PEOPLE, adminId: "usr_admin" });

  // today's gate policy as data, version 1, with passkey signatures on refunds and credits of $1,500.00 and more
  await seedGatePolicy(prisma, now, demoDeskGateRules(Object.values(toolCatalog)));
  const agent = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
  for (const r of desk.runs) {
    // Keyed by scenario, not by body: a rerun on a later day (other relative dates) adds nothing.
    if (await prisma.run.findFirst({ where: { agentId: DEMO_AGENT_ID, idempotencyKey: `seed:${r.key}` }, select: { id: true } })) continue;
    const task = await prisma.task.findFirstOrThrow({ where: { desk: DEFAULT_DESK, ticketId: r.ticketId }, orderBy: { createdAt: "asc" } });
    await submitRun(agent, task.id, { taskRevision: task.revision, steps: r.steps }, `seed:${r.key}`, addHours(now, -r.ageHours));
  }
  const retailAgent = { id: DEMO_RETAIL_AGENT_ID, name: "Retail desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo_retail", desk: RETAIL_DESK.id };
  for (const r of retail.runs) {
    if (await prisma.run.findFirst({ where: { agentId: DEMO_RETAIL_AGENT_ID, idempotencyKey: `seed:${r.key}` }, select: { id: true } })) continue;
    const task = await prisma.task.findFirstOrThrow({ where: { desk: RETAIL_DESK.id, ticketId: r.ticketId }, orderBy: { createdAt: "asc" } });
    await submitRun(retailAgent, task.id, { taskRevision: task.revision, steps: r.steps }, `seed:${r.key}`, addHours(now, -r.ageHours));
  }
  return demoDeskCounts();
}

/** What a seed reports: how many accounts, tickets, invoices, shipments and runs the database holds (every desk). */
export async function demoDeskCounts(): Promise<{ accounts: number; tickets: number; invoices: number; shipments: number; runs: number }> {
  return {
    accounts: await prisma.customerAccount.count(),
    tickets: await prisma.ticket.count(),
    invoices: await prisma.invoice.count(),
    shipments: await prisma.shipment.count(),
    runs: await prisma.run.count(),
  };
}

/**
 * Loads one demo desk's account data through the records door (lib/server/records/apply-records.ts,
 * what `POST /api/v1/records/batch` applies): its accounts, invoices (USD), shipments and the
 * holidays of its destinations, each at source version 1 changed at `now`. A holiday's id is
 * `hol_<dest>_<date>` on every desk (ids are per desk, so each desk's is its own). Errors: throws
 * naming the first record the door refused (a bug of the demo data).
 */
async function loadDemoRecords(deskId: string, data: Pick<ReturnType<typeof buildDemoDesk>, "accounts" | "invoices" | "shipments" | "holidays">, now: Date): Promise<void> {
  const envelope = { op: "put" as const, sourceVersion: 1, sourceUpdatedAt: now };
  const records: RecordInput[] = [
    ...data.accounts.map((a) => ({ ...envelope, kind: "account" as const, id: a.id, fields: { name: a.name, ...(a.tags ? { tags: a.tags } : {}) } })),
    ...data.invoices.map(({ id, ...f }) => ({ ...envelope, kind: "invoice" as const, id, fields: { ...f, currency: "USD" } })),
    ...data.shipments.map(({ id, ...f }) => ({ ...envelope, kind: "shipment" as const, id, fields: f })),
    ...data.holidays.map((h) => ({ ...envelope, kind: "holiday" as const, id: `hol_${h.destination}_${h.date}`, fields: h })),
  ];
  const outcomes = await applyRecords(deskId, records, { now });
  const refused = outcomes.findIndex((o) => !o.ok);
  if (refused >= 0) {
    const o = outcomes[refused] as { ok: false; error: { code: string; message: string } };
    throw new Error(`demo seed: the records door refused ${records[refused].kind} ${records[refused].id}: ${o.error.code} ${o.error.message}`);
  }
}

/**
 * The grant rows of demo user `u` (ids `<userId>_<tool>`; money limits in USD minor units), as
 * seeded — also what a demo reset restores. Pure.
 */
export function demoGrantRows(u: (typeof DEMO_USERS)[number]) {
  return u.grants.map((g) => ({
    id: `${u.id}_${g.tool}`,
    tool: g.tool,
    canApprove: g.approve,
    approveLimitMinor: g.approveLimit ?? null,
    approveLimitCurrency: g.approveLimit != null ? "USD" : null,
    canAuthor: g.author,
    authorLimitMinor: g.authorLimit ?? null,
    authorLimitCurrency: g.authorLimit != null ? "USD" : null,
  }));
}

/**
 * Production mode (PLANDESK_DEMO=0): no demo sign-in or demo key may work, also on a database
 * that was seeded in demo mode earlier. Demo users (by their demo emails) lose their password
 * credentials, sessions and grants and are disabled (the rows stay, so names in the audit trail
 * still resolve); the demo agent and integration keys are deleted. On a fresh database this finds nothing.
 * Returns what was retired.
 */
export async function retireDemoAccess(): Promise<{ users: string[]; keys: number }> {
  const emails = DEMO_USERS.map((u) => u.email);
  const users = await prisma.user.findMany({ where: { email: { in: emails } }, select: { id: true, email: true } });
  const ids = users.map((u) => u.id);
  await prisma.$transaction([
    prisma.session.deleteMany({ where: { userId: { in: ids } } }),
    prisma.authAccount.deleteMany({ where: { userId: { in: ids } } }),
    prisma.grant.deleteMany({ where: { userId: { in: ids } } }),
    prisma.user.updateMany({ where: { id: { in: ids } }, data: { disabled: true } }),
  ]);
  const keys = await prisma.apiKey.deleteMany({ where: { hash: { in: [hashApiKey(DEMO_AGENT_KEY), hashApiKey(DEMO_RETAIL_AGENT_KEY)] } } });
  const integrationKeys = await prisma.integrationKey.deleteMany({ where: { hash: hashApiKey(DEMO_INTEGRATION_KEY) } });
  return { users: users.map((u) => u.email), keys: keys.count + integrationKeys.count };
}

/**
 * True when this database already holds the demo desk — every demo person and the reference
 * case's task (`task_74991`) — so `npm start` leaves it as it is (`npm run db:seed` seeds again).
 * Two indexed counts; no error of its own.
 */
export async function demoDeskPresent(): Promise<boolean> {
  const [users, reference] = await Promise.all([prisma.user.count({ where: { id: { in: DEMO_USERS.map((u) => u.id) } } }), prisma.task.count({ where: { id: "task_74991" } })]);
  return users === DEMO_USERS.length && reference === 1;
}

/**
 * What `npm run db:seed` does for `env`: in demo mode (PLANDESK_DEMO != "0") seeds the demo desk;
 * in production mode creates nothing and retires any demo access (see `retireDemoAccess`).
 * `adminCount` = enabled admins afterwards (0 in a fresh production desk: run `npm run admin:create`).
 */
export async function seedForEnvironment(env: Record<string, string | undefined> = process.env, now = new Date()) {
  const demo = env.PLANDESK_DEMO !== "0";
  const counts = demo ? await seedDemoDesk(now) : null;
  const retired = demo ? null : await retireDemoAccess();
  const adminCount = await prisma.user.count({ where: { role: "admin", disabled: false } });
  return { demo, counts, retired, adminCount };
}
