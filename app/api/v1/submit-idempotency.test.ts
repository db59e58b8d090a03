/**
 * The Idempotency-Key of a refused submission: the refusal saves no answer (it may change: live
 * data, the agent's tools, the task) but binds the key to its request — the same body again is
 * decided afresh, another body with that key is 409 `idempotency_conflict` and stores nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { prisma } from "@/lib/server/db/db";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const KEY = "pd_idem_agent_key_refusals";

async function submit(ticketId: string, steps: unknown[], idem: string): Promise<{ status: number; body: Json; replayed: string | null }> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const res = await submitRoute(
    new Request(`http://localhost:3999/api/v1/tasks/${task.id}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": idem },
      body: JSON.stringify({ taskRevision: task.revision, steps }),
    }),
    { params: Promise.resolve({ taskId: task.id }) },
  );
  return { status: res.status, body: (await res.json()) as Json, replayed: res.headers.get("idempotent-replayed") };
}

const reply = (ticketId: string) => ({ id: "s_reply", tool: "send_reply", args: { ticketId, body: "Thanks for getting in touch; we are looking into it." }, rationale: "The customer asked." });
const note = (ticketId: string) => ({ id: "s_note", tool: "add_ticket_note", args: { ticketId, note: "Looked into it." } });

beforeAll(async () => {
  await prepareTestDatabase();
  // an agent that may not send replies yet
  await prisma.agent.create({ data: { id: "agent_idem", name: "Idempotency agent", allowedTools: ["add_ticket_note"] } });
  await prisma.apiKey.create({ data: { id: "key_idem", agentId: "agent_idem", hash: hashApiKey(KEY), prefix: KEY.slice(0, 8) } });
});

describe("the Idempotency-Key of a refused submission", () => {
  it("another body with the key of a 422 is refused idempotency_conflict and stores nothing; the same body is decided afresh, and once it passes its answer is saved and replayed", async () => {
    const refused = await submit("75006", [reply("75006")], "idem-refused-1");
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("validation_failed");

    const runsBefore = await prisma.run.count({ where: { agentId: "agent_idem" } });
    const other = await submit("75006", [note("75006")], "idem-refused-1");
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: "idempotency_conflict", idempotencyKey: "idem-refused-1" });
    expect(await prisma.run.count({ where: { agentId: "agent_idem" } })).toBe(runsBefore);

    // the same body again: decided afresh (not a replayed refusal, not a conflict)
    const again = await submit("75006", [reply("75006")], "idem-refused-1");
    expect(again.status).toBe(422);
    expect(again.replayed).toBeNull();

    // what made it refused changes: the same body with the same key now passes, once
    await prisma.agent.update({ where: { id: "agent_idem" }, data: { allowedTools: ["add_ticket_note", "send_reply"] } });
    const passed = await submit("75006", [reply("75006")], "idem-refused-1");
    expect(passed.status).toBe(201);
    const replay = await submit("75006", [reply("75006")], "idem-refused-1");
    expect(replay.status).toBe(201);
    expect(replay.replayed).toBe("true");
    expect(replay.body.run.id).toBe(passed.body.run.id);
    expect(await prisma.run.count({ where: { agentId: "agent_idem" } })).toBe(runsBefore + 1);
    // and another body with that key is still a conflict
    expect((await submit("75006", [note("75006")], "idem-refused-1")).body.error.code).toBe("idempotency_conflict");
  });

  it("a 409 stale_task binds the key the same way", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75007" } });
    const res = await submitRoute(
      new Request(`http://localhost:3999/api/v1/tasks/${task.id}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": "idem-stale-1" },
        body: JSON.stringify({ taskRevision: task.revision + 5, steps: [note("75007")] }),
      }),
      { params: Promise.resolve({ taskId: task.id }) },
    );
    expect(res.status).toBe(409);
    expect((await submit("75007", [note("75007")], "idem-stale-1")).body.error.code).toBe("idempotency_conflict");
  });
});
