/**
 * Property test of `POST /api/v1/tasks/{taskId}/runs`: random JSON bodies, plan-shaped
 * anything (random steps of random tools and args, big integers as strings and as raw numbers,
 * unicode lookalikes, -0, oversized plans) and valid controls, sent to the real route handler
 * against this file's own SQLite database. Oracle (testing/api-fuzz.ts): never a 5xx, typed
 * error bodies, no run stored for a refused or invalid plan, every stored plan passes
 * validatePlan again, every valid control accepted. The ≥ 10,000-case version is
 * scripts/bench-api-fuzz.ts (`npm run bench`).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_FUZZ_TARGET, FAMILIES, fuzzCaseArb, runFuzzCase, toBodyText, type Family } from "@/testing/api-fuzz";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { prepareTestDatabase } from "@/testing/test-support";
import { liftRateLimits } from "@/testing/unlimited-rates";
import { POST as submitRun } from "./tasks/[taskId]/runs/route";

let allowedTools: string[] = [];

// hundreds of submissions from the demo key at once: a deliberate flood, past any rate limit
liftRateLimits();

beforeAll(async () => {
  await prepareTestDatabase();
  const agent = await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID } });
  allowedTools = agent.allowedTools as string[];
  expect(await prisma.task.findUniqueOrThrow({ where: { id: DEMO_FUZZ_TARGET.taskId } })).toMatchObject({ revision: DEMO_FUZZ_TARGET.liveRevision });
});

describe("fuzzing POST /api/v1/tasks/{taskId}/runs", () => {
  it("never answers 5xx, never stores an invalid plan, and accepts every valid control (200 cases)", async () => {
    const seen = Object.fromEntries(FAMILIES.map((f) => [f, 0])) as Record<Family, number>;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fuzzCaseArb(DEMO_FUZZ_TARGET, `vitest-${Date.now()}`), async (c) => {
        const out = await runFuzzCase(submitRun, c, DEMO_AGENT_KEY, allowedTools);
        seen[c.family]++;
        statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1);
        expect(out.problems, `${c.family} ${c.note ?? ""} ${c.bodyText.slice(0, 300)}`).toEqual([]);
      }),
      { numRuns: 200 },
    );
    // The generator reached every family and both sides of the oracle.
    for (const f of FAMILIES) expect(seen[f], f).toBeGreaterThan(0);
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
  }, 180_000);

  it("has an oracle that catches a 5xx, a non-JSON answer, an untyped error and a stored invalid plan", async () => {
    const invalid = { family: "mutated_invalid" as const, taskId: DEMO_FUZZ_TARGET.taskId, expect: "invalid" as const };
    const body = toBodyText({ taskRevision: 1, steps: [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75016", note: "   " } }] });
    const crash = await runFuzzCase(async () => Response.json({ error: { code: "internal", message: "boom" } }, { status: 500 }), { ...invalid, bodyText: body }, DEMO_AGENT_KEY, allowedTools);
    expect(crash).toMatchObject({ fiveHundred: true });
    const html = await runFuzzCase(async () => new Response("<html>oops</html>", { status: 400 }), { ...invalid, bodyText: body }, DEMO_AGENT_KEY, allowedTools);
    expect(html.problems).toEqual(["body is not JSON"]);
    const untyped = await runFuzzCase(async () => Response.json({ message: "bad" }, { status: 400 }), { ...invalid, bodyText: body }, DEMO_AGENT_KEY, allowedTools);
    expect(untyped.problems[0]).toMatch(/malformed error body/);

    // A handler that stores whatever it is sent, bypassing validation.
    let n = 0;
    const storesAnything = async (req: Request) => {
      const sent = (await req.json()) as { steps: unknown };
      const id = `run_fuzz_oracle_${n++}`;
      const now = new Date();
      await prisma.run.create({
        data: { id, taskId: DEMO_FUZZ_TARGET.taskId, agentId: DEMO_AGENT_ID, status: "pending_review", boundTaskRevision: 1, expiresAt: now, escalateAt: now, createdAt: now },
      });
      await prisma.planVersion.create({ data: { id: `${id}_v1`, runId: id, version: 1, steps: sent.steps as never, validation: {} } });
      return Response.json({ run: { id, steps: [] } }, { status: 201 });
    };
    const stored = await runFuzzCase(storesAnything, { ...invalid, bodyText: body }, DEMO_AGENT_KEY, allowedTools);
    expect(stored.acceptedInvalid).toBe(true);
    expect(stored.problems.join("\n")).toMatch(/known to be invalid[\s\S]*stored plan fails validation/);
    // Even without knowing the plan was invalid, re-validating the stored plan catches it.
    const unknown = await runFuzzCase(storesAnything, { ...invalid, expect: "unknown", bodyText: body }, DEMO_AGENT_KEY, allowedTools);
    expect(unknown).toMatchObject({ acceptedInvalid: true, problems: [expect.stringMatching(/stored plan fails validation/)] });
    await prisma.planVersion.deleteMany({ where: { runId: { startsWith: "run_fuzz_oracle_" } } });
    await prisma.run.deleteMany({ where: { id: { startsWith: "run_fuzz_oracle_" } } });
  });

  it("writes numbers JSON.stringify cannot (-0, 1e400, big integers) as raw JSON tokens", () => {
    const text = toBodyText({ a: "\u0000raw:-0", b: ["\u0000raw:1e400", "\u0000raw:123456789012345678901234567890"], c: "-0" });
    expect(text).toBe('{"a":-0,"b":[1e400,123456789012345678901234567890],"c":"-0"}');
    const parsed = JSON.parse(text) as { a: number; b: number[] };
    expect(Object.is(parsed.a, -0)).toBe(true);
    expect(parsed.b[0]).toBe(Infinity);
  });
});
