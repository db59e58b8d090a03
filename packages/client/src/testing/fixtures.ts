/**
 * Playwright fixtures for a QA suite against a running Plandesk console in demo mode: a signed-in
 * page per role (through storage state, signed in once per worker over HTTP), signed-in request
 * contexts, the agent client, and the scenario helper (`POST /api/demo/scenarios/{name}`,
 * `POST /api/demo/reset`). Configure the console with Playwright's `use.baseURL` (or
 * `PLANDESK_URL`); it must be the console's public origin spelled exactly (`PLANDESK_URL` on the
 * server): a person's mutating requests carry it as `Origin`, and another spelling (127.0.0.1 for
 * localhost) is refused 403.
 *
 *   import { RunPage, test } from "@plandesk/client/testing";
 *   test("operator approves", async ({ scenarios, pageAs }) => {
 *     const { runIds: [runId] } = await scenarios.make("reference-case");
 *     const run = await new RunPage(await pageAs("operator")).goto(runId);
 *     await run.approve();
 *   });
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test as base, expect, request as playwrightRequest, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { createAgentClient, type AgentClient } from "../client.js";
import type { operations } from "../generated/openapi.js";

/** The demo desk's people (docs/api.md "Demo desk"), all with the password `plandesk-demo`. */
export type Role = "operator" | "senior" | "supervisor" | "admin" | "retail";

/** What `POST /api/demo/scenarios/{name}` answers: the ids it made, the main run first, and what to expect. */
export type ScenarioResult = operations["makeScenario"]["responses"][201]["content"]["application/json"];
/** One entry of `GET /api/demo/scenarios`. */
export type ScenarioInfo = operations["listScenarios"]["responses"][200]["content"]["application/json"]["scenarios"][number];
/** What `POST /api/demo/reset` answers: milliseconds, whether the desk came back from the snapshot (`restored`), and the seeded counts. */
export type ResetResult = operations["resetDemo"]["responses"][200]["content"]["application/json"]["reset"];

/** Sign-in details: the email of each role and the shared password. */
export interface PlandeskUsers {
  emails: Record<Role, string>;
  password: string;
}

/** The demo desk's users (operator@plandesk.test, …; password `plandesk-demo`). */
export const DEMO_USERS: PlandeskUsers = {
  emails: { operator: "operator@plandesk.test", senior: "senior@plandesk.test", supervisor: "supervisor@plandesk.test", admin: "admin@plandesk.test", retail: "retail@plandesk.test" },
  password: "plandesk-demo",
};

/** The scenario helper: make a named scenario, list them, reset the demo desk. */
export interface Scenarios {
  /** `POST /api/demo/scenarios/{name}` as the operator; throws with the answer unless 201. */
  make(name: string): Promise<ScenarioResult>;
  /** `GET /api/demo/scenarios`. */
  list(): Promise<ScenarioInfo[]>;
  /** `POST /api/demo/reset` as the admin: every run, edit and approval gone, the demo desk as seeded. */
  reset(): Promise<ResetResult>;
}

/** The fixtures a test gets. */
export interface PlandeskTestFixtures {
  /** A new page signed in as `role` (its own browser context, closed after the test). */
  pageAs(role: Role): Promise<Page>;
  /** A request context signed in as `role`, sending the console's origin (for a person's HTTP calls). */
  requestAs(role: Role): Promise<APIRequestContext>;
  /** Signed-in pages of the three roles. */
  operatorPage: Page;
  supervisorPage: Page;
  adminPage: Page;
  /** The agent client with the demo agent's key (`plandeskAgentKey`). */
  agent: AgentClient;
  /** Named scenarios and reset. */
  scenarios: Scenarios;
}

/** Worker-scoped fixtures and options. */
export interface PlandeskWorkerFixtures {
  /** The agent key for `agent` (default: `PLANDESK_AGENT_KEY` or the demo agent's `pd_demo_agent_key`). */
  plandeskAgentKey: string;
  /** Who signs in as each role (default {@link DEMO_USERS}). */
  plandeskUsers: PlandeskUsers;
  /** The console's origin: `use.baseURL`, else `PLANDESK_URL`, else http://localhost:3000. */
  plandeskOrigin: string;
  /** The storage-state file of `role`, signed in once per worker over HTTP. */
  storageStateOf(role: Role): Promise<string>;
}

/** Signs `email` in over HTTP with the console's `origin` and returns the signed-in request context. */
export async function signInOverHttp(origin: string, email: string, password: string): Promise<APIRequestContext> {
  const ctx = await playwrightRequest.newContext({ baseURL: origin, extraHTTPHeaders: { origin } });
  const res = await ctx.post("/api/auth/sign-in/email", { data: { email, password } });
  if (!res.ok()) {
    const body = await res.text();
    await ctx.dispose();
    throw new Error(`Signing in ${email} at ${origin} answered ${res.status()}: ${body}`);
  }
  return ctx;
}

async function newPageWith(browser: Browser, origin: string, storageState: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin, storageState });
  return context.newPage();
}

/** The base test with Plandesk's fixtures; `expect` is Playwright's. */
export const test = base.extend<PlandeskTestFixtures, PlandeskWorkerFixtures>({
  plandeskAgentKey: [process.env.PLANDESK_AGENT_KEY ?? "pd_demo_agent_key", { option: true, scope: "worker" }],
  plandeskUsers: [DEMO_USERS, { option: true, scope: "worker" }],
  plandeskOrigin: [
    async ({}, use, workerInfo) => {
      const configured = workerInfo.project.use.baseURL ?? process.env.PLANDESK_URL ?? "http://localhost:3000";
      await use(new URL(configured).origin);
    },
    { scope: "worker" },
  ],
  storageStateOf: [
    async ({ plandeskOrigin, plandeskUsers }, use, workerInfo) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `plandesk-auth-${workerInfo.workerIndex}-`));
      const files = new Map<Role, Promise<string>>();
      await use((role) => {
        let file = files.get(role);
        if (!file) {
          file = (async () => {
            const ctx = await signInOverHttp(plandeskOrigin, plandeskUsers.emails[role], plandeskUsers.password);
            const target = path.join(dir, `${role}.json`);
            await ctx.storageState({ path: target });
            await ctx.dispose();
            return target;
          })();
          files.set(role, file);
        }
        return file;
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
    { scope: "worker" },
  ],
  pageAs: async ({ browser, plandeskOrigin, storageStateOf }, use) => {
    const pages: Page[] = [];
    await use(async (role) => {
      const page = await newPageWith(browser, plandeskOrigin, await storageStateOf(role));
      pages.push(page);
      return page;
    });
    for (const p of pages) await p.context().close();
  },
  requestAs: async ({ plandeskOrigin, storageStateOf }, use) => {
    const contexts: APIRequestContext[] = [];
    await use(async (role) => {
      const ctx = await playwrightRequest.newContext({ baseURL: plandeskOrigin, storageState: await storageStateOf(role), extraHTTPHeaders: { origin: plandeskOrigin } });
      contexts.push(ctx);
      return ctx;
    });
    for (const c of contexts) await c.dispose();
  },
  operatorPage: async ({ pageAs }, use) => use(await pageAs("operator")),
  supervisorPage: async ({ pageAs }, use) => use(await pageAs("supervisor")),
  adminPage: async ({ pageAs }, use) => use(await pageAs("admin")),
  agent: async ({ plandeskOrigin, plandeskAgentKey }, use) => use(createAgentClient({ baseUrl: plandeskOrigin, apiKey: plandeskAgentKey })),
  scenarios: async ({ requestAs }, use) => {
    await use({
      async make(name) {
        const res = await (await requestAs("operator")).post(`/api/demo/scenarios/${encodeURIComponent(name)}`);
        if (res.status() !== 201) throw new Error(`Scenario ${name} answered ${res.status()}: ${await res.text()}`);
        return (await res.json()) as ScenarioResult;
      },
      async list() {
        const res = await (await requestAs("operator")).get("/api/demo/scenarios");
        if (!res.ok()) throw new Error(`GET /api/demo/scenarios answered ${res.status()}: ${await res.text()}`);
        return ((await res.json()) as { scenarios: ScenarioInfo[] }).scenarios;
      },
      async reset() {
        const res = await (await requestAs("admin")).post("/api/demo/reset");
        if (!res.ok()) throw new Error(`POST /api/demo/reset answered ${res.status()}: ${await res.text()}`);
        return ((await res.json()) as { reset: ResetResult }).reset;
      },
    });
  },
});

export { expect };
