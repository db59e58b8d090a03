/**
 * `npx tsx scripts/bench-pages.ts --url http://127.0.0.1:3000 [--run <runId>] [--repeat 3]`:
 * times every page of the console and its list endpoints over HTTP against a running server
 * (e.g. `next start` on a database seeded with `npm run db:seed -- --scale`), signed in as the
 * demo supervisor (admin pages as the demo admin). Prints status, median and worst in ms.
 * every page should answer well under a second at scale size. Reads only.
 */
const arg = (name: string, fallback?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const base = arg("url", "http://127.0.0.1:3000")!.replace(/\/$/, "");
const origin = arg("origin", base)!;
const repeat = Number(arg("repeat", "3"));

async function signIn(email: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "plandesk-demo" }),
  });
  if (res.status !== 200) throw new Error(`sign-in of ${email}: ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

async function main() {
  const supervisor = await signIn("supervisor@plandesk.test");
  const admin = await signIn("admin@plandesk.test");
  const queue = (await (await fetch(`${base}/api/runs?status=completed`, { headers: { cookie: supervisor } })).json()) as { runs: { id: string }[]; nextCursor: string };
  const runId = arg("run") ?? queue.runs[0]?.id;
  const paths: [string, string][] = [
    ["/runs", supervisor],
    ["/runs?status=completed", supervisor],
    ["/runs?status=expired", supervisor],
    [`/runs/${runId}`, supervisor],
    [`/runs/${runId}/audit`, supervisor],
    ["/escalations", supervisor],
    ["/reconciliation", supervisor],
    ["/denials", supervisor],
    ["/insights", supervisor],
    ["/admin/users", admin],
    ["/api/runs?status=pending_review", supervisor],
    [`/api/runs?status=completed&cursor=${queue.nextCursor}`, supervisor],
    [`/api/runs/${runId}`, supervisor],
    ["/api/admin/users", admin],
    ["/api/account-data/invoice?q=in_10001", supervisor],
    ["/api/account-data/ticket?q=2999", supervisor],
  ];
  for (const [path, cookie] of paths) {
    const times: number[] = [];
    let status = 0;
    for (let k = 0; k < repeat; k++) {
      const t = performance.now();
      const res = await fetch(`${base}${path}`, { headers: { cookie }, redirect: "manual" });
      await res.arrayBuffer();
      status = res.status;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`${path.slice(0, 60).padEnd(62)} ${status}  median ${String(Math.round(times[Math.floor(times.length / 2)])).padStart(5)} ms  worst ${String(Math.round(times.at(-1)!)).padStart(5)} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
export {};
