/**
 * A lost database, seen from outside: one production server (scripts/server.mjs, what `npm start`
 * serves) on a freshly migrated and seeded PostgreSQL database, reached through a TCP switch that
 * stands for the database's stable address (testing/tcp-switch.ts). While the switch refuses
 * connections and has cut the open ones, every page answers 503 with `Retry-After` (never 500),
 * the API answers its typed `database_unavailable`, readiness says `database_unreachable` and
 * liveness still answers; when the database is back the same pages answer 200 again with the
 * same session. The failover itself (a standby promoted under load) is
 * lib/server/db/failover.pg.test.ts.
 */
import { expect, test } from "@playwright/test";
import { dropPgTestDatabase } from "../testing/test-databases";
import { freePort, freshSeededPgDatabase, signInCookieAt, startAppInstance, stopAppInstance, type AppInstance } from "../testing/app-instances";
import { startTcpSwitch, type TcpSwitch } from "../testing/tcp-switch";

const RETRY_AFTER_SECONDS = "3";

let databaseUrl = "";
let sw: TcpSwitch;
let instance: AppInstance;
let cookie = "";
let pages: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  databaseUrl = await freshSeededPgDatabase();
  const direct = new URL(databaseUrl);
  sw = await startTcpSwitch(Number(direct.port || 5432));
  const viaSwitch = new URL(databaseUrl);
  viaSwitch.hostname = "127.0.0.1";
  viaSwitch.port = String(sw.port);
  const port = await freePort();
  instance = await startAppInstance({
    databaseUrl: viaSwitch.toString(),
    port,
    publicOrigin: `http://localhost:${port}`,
    env: { PLANDESK_DB_RETRY_AFTER_SECONDS: RETRY_AFTER_SECONDS, PLANDESK_SWEEP: "0", PLANDESK_GATEWAY_EXECUTOR: "0", PLANDESK_PG_POOL_MAX: "4" },
  });
  cookie = await signInCookieAt(instance, "supervisor@plandesk.test");
  const runs = await fetch(`${instance.origin}/api/runs`, { headers: { cookie } });
  expect(runs.status).toBe(200);
  const runId = ((await runs.json()) as { runs: { id: string }[] }).runs[0].id;
  pages = ["/runs", `/runs/${runId}`, `/runs/${runId}/audit`, "/escalations", "/insights"];
});

test.afterAll(async () => {
  if (instance) await stopAppInstance(instance);
  await sw?.close();
  if (databaseUrl) await dropPgTestDatabase(databaseUrl);
});

const get = (path: string) => fetch(`${instance.origin}${path}`, { headers: { cookie }, redirect: "manual" });

test("with the database gone every page answers 503 with Retry-After, the API its typed refusal; back, the same session sees them again", async () => {
  test.setTimeout(120_000);
  for (const p of pages) expect((await get(p)).status, p).toBe(200);

  sw.refuse();
  sw.cut();
  for (const p of pages) {
    const res = await get(p);
    expect(res.status, `${p}: ${res.status}`).toBe(503);
    expect(res.headers.get("retry-after"), p).toBe(RETRY_AFTER_SECONDS);
    expect(res.headers.get("cache-control"), p).toContain("no-store");
  }
  const api = await get("/api/runs");
  expect(api.status).toBe(503);
  expect(((await api.json()) as { error: { code: string } }).error.code).toBe("database_unavailable");
  const ready = await fetch(`${instance.origin}/api/health/ready`);
  expect(ready.status).toBe(503);
  expect(((await ready.json()) as { reasons: string[] }).reasons).toContain("database_unreachable");
  expect((await fetch(`${instance.origin}/api/health/live`)).status).toBe(200);
  expect(instance.output()).not.toMatch(/"level":(50|60)[^\n]*"msg":"plandesk: request failed"/);

  sw.switchTo(Number(new URL(databaseUrl).port || 5432));
  await expect.poll(async () => (await get("/runs")).status, { timeout: 30_000 }).toBe(200);
  for (const p of pages) expect((await get(p)).status, p).toBe(200);
});

test("a person who opens a page during the outage sees the error page, and the page works once the database is back", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: instance.origin });
  const [name, ...value] = cookie.split(";")[0].split("=");
  await context.addCookies([{ name, value: value.join("="), url: instance.origin }]);
  const page = await context.newPage();
  sw.refuse();
  sw.cut();
  const res = await page.goto(pages[2]);
  expect(res?.status()).toBe(503);
  await expect(page.getByRole("heading", { name: "Something went wrong" })).toBeVisible();
  sw.switchTo(Number(new URL(databaseUrl).port || 5432));
  await expect.poll(async () => (await page.reload())?.status(), { timeout: 30_000 }).toBe(200);
  await context.close();
});
