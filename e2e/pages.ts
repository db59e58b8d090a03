/**
 * Every page of app/ once, with a role that may open it and how to fill its dynamic segments:
 * the one list e2e/every-page.spec.ts (headers, CSP, axe in light and dark, hydration) and
 * e2e/security-headers.spec.ts (hostile paths) walk. `pageRoutes()` reads app/ itself, so a new page without a case here
 * fails the first test of e2e/every-page.spec.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import type { Role } from "./helpers";

export type Who = Role | "signed_out";

/** One page: its route as in app/ (e.g. "/runs/[id]"), who opens it, the URL to open. */
export interface PageCase {
  route: string;
  who: Who;
  url: (page: Page) => Promise<string>;
}

/** The id of the first run of the queue the signed-in person sees. */
export const firstRunId = async (page: Page) => {
  const res = await page.request.get("/api/runs");
  expect(res.status()).toBe(200);
  const { runs } = (await res.json()) as { runs: { id: string }[] };
  expect(runs.length).toBeGreaterThan(0);
  return runs[0].id;
};

export const PAGES: PageCase[] = [
  { route: "/", who: "operator", url: async () => "/" },
  { route: "/sign-in", who: "signed_out", url: async () => "/sign-in" },
  { route: "/runs", who: "operator", url: async () => "/runs" },
  { route: "/runs/[id]", who: "operator", url: async (p) => `/runs/${await firstRunId(p)}` },
  { route: "/runs/[id]/audit", who: "supervisor", url: async (p) => `/runs/${await firstRunId(p)}/audit` },
  { route: "/notifications", who: "senior", url: async () => "/notifications" },
  { route: "/account/passkeys", who: "operator", url: async () => "/account/passkeys" },
  { route: "/escalations", who: "supervisor", url: async () => "/escalations" },
  { route: "/reconciliation", who: "supervisor", url: async () => "/reconciliation" },
  { route: "/insights", who: "supervisor", url: async () => "/insights" },
  { route: "/outcomes/review", who: "supervisor", url: async () => "/outcomes/review" },
  { route: "/denials", who: "supervisor", url: async () => "/denials" },
  { route: "/admin", who: "admin", url: async () => "/admin" },
  { route: "/admin/users", who: "admin", url: async () => "/admin/users" },
  { route: "/admin/users/[id]", who: "admin", url: async () => "/admin/users/usr_operator" },
  { route: "/admin/agents", who: "admin", url: async () => "/admin/agents" },
  { route: "/admin/tools", who: "admin", url: async () => "/admin/tools" },
  { route: "/admin/gate-policy", who: "admin", url: async () => "/admin/gate-policy" },
  { route: "/admin/webhooks", who: "admin", url: async () => "/admin/webhooks" },
  { route: "/admin/changes", who: "admin", url: async () => "/admin/changes" },
  { route: "/admin/integrations", who: "admin", url: async () => "/admin/integrations" },
  { route: "/admin/desks", who: "admin", url: async () => "/admin/desks" },
  { route: "/admin/desks/[deskId]/intents", who: "admin", url: async () => "/admin/desks/freight/intents" },
  { route: "/admin/desks/[deskId]/record-kinds", who: "admin", url: async () => "/admin/desks/freight/record-kinds" },
  { route: "/admin/desks/[deskId]/sign-in", who: "admin", url: async () => "/admin/desks/retail/sign-in" },
  { route: "/desk-rules", who: "supervisor", url: async () => "/desk-rules" },
  { route: "/desk-rules/new", who: "supervisor", url: async () => "/desk-rules/new" },
  { route: "/desk-rules/[ruleId]", who: "supervisor", url: async (p) => `/desk-rules/${await someDeskRuleId(p)}` },
];

/** A desk rule's id: the newest, or a guidance rule on the retail desk made for the purpose (it checks nothing). */
async function someDeskRuleId(page: Page): Promise<string> {
  const listed = await page.request.get("/api/desk-rules?limit=1");
  expect(listed.status()).toBe(200);
  const { rules } = (await listed.json()) as { rules: { id: string }[] };
  if (rules.length) return rules[0].id;
  const origin = (process.env.PLANDESK_E2E_BASE_URL ?? `http://localhost:${process.env.E2E_PORT ?? 3100}`).replace(/\/$/, "");
  const made = await page.request.post("/api/desk-rules", {
    headers: { origin },
    data: { desk: "retail", severity: "warning", description: "Pages walk: guidance only", rule: { kind: "guidance", tool: "send_reply" }, note: "e2e pages" },
  });
  expect(made.status()).toBe(201);
  return ((await made.json()) as { rule: { id: string } }).rule.id;
}

/** Every page route in app/ (from its page.tsx); a route group's folder, e.g. "(queue)", is no part of the URL. */
export function pageRoutes(dir = path.resolve(__dirname, "..", "app"), base = ""): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) {
      if (e.name === "api") return [];
      return pageRoutes(path.join(dir, e.name), /^\(.*\)$/.test(e.name) ? base : `${base}/${e.name}`);
    }
    return e.name === "page.tsx" ? [base || "/"] : [];
  });
}
