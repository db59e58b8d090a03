import { afterEach, describe, expect, it } from "vitest";
import { GET, POST } from "./route";

const before = process.env.PLANDESK_BENCH;
afterEach(() => {
  if (before === undefined) delete process.env.PLANDESK_BENCH;
  else process.env.PLANDESK_BENCH = before;
});

describe("the benchmark's bare route (app/api/bench/bare)", () => {
  it("does not exist unless the server runs with PLANDESK_BENCH=1", async () => {
    delete process.env.PLANDESK_BENCH;
    expect(GET().status).toBe(404);
    expect((await POST(new Request("http://localhost/api/bench/bare", { method: "POST", body: "{}" }))).status).toBe(404);
    process.env.PLANDESK_BENCH = "0";
    expect(GET().status).toBe(404);
  });

  it("answers {ok: true} when it is on", async () => {
    process.env.PLANDESK_BENCH = "1";
    expect(await GET().json()).toEqual({ ok: true });
    const res = await POST(new Request("http://localhost/api/bench/bare", { method: "POST", body: "{}" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
