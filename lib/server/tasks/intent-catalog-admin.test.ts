/**
 * A desk's intent catalog in the admin console, against this file's own database (SQLite, or
 * PostgreSQL with PLANDESK_TEST_DB=postgres): read, save whole (audited), refused when stale, with
 * an unknown tool or by a non-admin, and in force at the next submission.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { DEMO_INTENTS } from "../../task-contract/demo-catalog";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitRun } from "../runs/submit-run";
import type { AgentCaller } from "../auth/viewer";
import { prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { getIntentCatalogForAdmin, intentCatalogDigest, saveIntentCatalog } from "./intent-catalog-admin";

const admin = { id: "usr_admin", role: "admin" as const };
const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };

beforeAll(async () => {
  await prepareTestDatabase();
});

/** The agent's reply on task_75007 (a question: "what does the detention fee cover?"). */
async function submitReply() {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75007" } });
  const steps = [{ id: "reply", tool: "send_reply", args: { ticketId: "75007", body: "The detention fee covers the time the trailer waited at the dock." } }];
  return submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `ic-${nanoid()}`, TEST_NOW);
}

describe("the intent catalog editor's service", () => {
  it("reads a desk's catalog in order with its digest and the tools an intent may permit; admins only; an unknown desk is not found", async () => {
    const c = await getIntentCatalogForAdmin(admin, "freight");
    expect(c.desk).toEqual({ id: "freight", name: expect.any(String) });
    expect(c.intents.map((i) => i.name)).toEqual(DEMO_INTENTS.map((i) => i.name));
    expect(c.digest).toBe(intentCatalogDigest(c.intents, c.defaultIntent));
    expect(c.tools.map((t) => t.name)).toContain("issue_refund");
    // Imported tools the demo catalog permits before anyone imported them: listed, kept on save.
    expect(c.notInCatalog).toEqual(["book_inspection", "print_label"]);
    expect((await refused(getIntentCatalogForAdmin({ id: "usr_supervisor", role: "supervisor" }, "freight"))).code).toBe("forbidden");
    expect((await refused(getIntentCatalogForAdmin(admin, "nowhere"))).code).toBe("not_found");
  });

  it("a save replaces the catalog whole, is audited with what changed, and the next submission is checked against it", async () => {
    expect((await submitReply()).run.status).toBe("pending_review"); // a question permits a reply
    const before = await getIntentCatalogForAdmin(admin, "freight");
    const intents = before.intents.map((i) => (i.name === "question" ? { ...i, permittedTools: ["add_ticket_note"] } : i)).filter((i) => i.name !== "goodwill_request");
    intents.push({ name: "claims_review", label: "Claims review", description: "A claim handed to the claims team", permittedTools: ["add_ticket_note", "escalate_ticket"] });
    const saved = await saveIntentCatalog(admin, "freight", { baseDigest: before.digest, intents, note: "Questions are answered by staff" });
    expect(saved.intents.map((i) => i.name)).toEqual(intents.map((i) => i.name));
    expect(saved.digest).not.toBe(before.digest);
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(event.actorId).toBe("usr_admin");
    expect(event.data).toMatchObject({ what: "desk.intents.save", target: { kind: "desk", id: "freight" }, changes: { added: ["claims_review"], removed: ["goodwill_request"], changed: ["question"] }, note: "Questions are answered by staff" });

    const e = await refused(submitReply());
    expect(e.code).toBe("validation_failed");
    expect((e.details.issues as { code: string }[]).map((i) => i.code)).toContain("outside_task_intent");
  });

  it("refuses a stale base, an unknown tool, a bad draft and a non-admin — and writes nothing", async () => {
    const live = await getIntentCatalogForAdmin(admin, "freight");
    const auditBefore = await prisma.auditEvent.count();
    const stale = await refused(saveIntentCatalog(admin, "freight", { baseDigest: "0".repeat(64), intents: [], note: "wipe" }));
    expect(stale).toMatchObject({ code: "stale_intent_catalog", status: 409 });
    expect(stale.details.digest).toBe(live.digest);
    const unknown = await refused(saveIntentCatalog(admin, "freight", { baseDigest: live.digest, intents: [{ name: "x_ray", label: "X", description: "", permittedTools: ["isue_refund"] }], note: "typo" }));
    expect(unknown.code).toBe("validation_failed");
    expect(unknown.details.issues).toEqual([{ path: "intents.0.permittedTools.0", code: "unknown_tool", message: "isue_refund is not a tool of the catalog" }]);
    expect((await refused(saveIntentCatalog(admin, "freight", { baseDigest: live.digest, intents: [{ name: "Bad Name", label: "", permittedTools: [] }], note: "" }))).code).toBe("bad_request");
    expect((await refused(saveIntentCatalog({ id: "usr_supervisor", role: "supervisor" }, "freight", { baseDigest: live.digest, intents: [], note: "n" }))).code).toBe("forbidden");
    expect((await getIntentCatalogForAdmin(admin, "freight")).digest).toBe(live.digest);
    // Only the supervisor's refusal is on the record (a `denied` event).
    expect((await prisma.auditEvent.findMany({ where: { seq: { gt: auditBefore } }, select: { type: true } })).map((e) => e.type)).toEqual(["denied"]);
  });

  it("a change of the default intent alone makes another editor's base stale: the old default is never put back silently", async () => {
    const opened = await getIntentCatalogForAdmin(admin, "freight");
    const other = opened.intents.find((i) => i.name !== opened.defaultIntent)!.name;
    // Admin A changes only the default intent; the intents stay as they were.
    const a = await saveIntentCatalog(admin, "freight", { baseDigest: opened.digest, intents: opened.intents, defaultIntent: other, note: "Default to " + other });
    expect(a.defaultIntent).toBe(other);
    expect(a.digest).not.toBe(opened.digest);
    // Admin B, whose editor opened before A saved, sends back the default it saw: refused as stale.
    const b = await refused(saveIntentCatalog(admin, "freight", { baseDigest: opened.digest, intents: opened.intents, defaultIntent: opened.defaultIntent, note: "B's save" }));
    expect(b).toMatchObject({ code: "stale_intent_catalog", status: 409 });
    expect(b.details.digest).toBe(a.digest);
    expect((await getIntentCatalogForAdmin(admin, "freight")).defaultIntent).toBe(other);
    // Put the desk's default back for the tests that follow.
    await saveIntentCatalog(admin, "freight", { baseDigest: a.digest, intents: a.intents, defaultIntent: opened.defaultIntent, note: "restore" });
  });

  it("parallel saves from the same base: exactly one wins, the others are told the catalog is stale", async () => {
    const live = await getIntentCatalogForAdmin(admin, "retail");
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((n) => saveIntentCatalog(admin, "retail", { baseDigest: live.digest, intents: [...live.intents, { name: `parallel_${n}`, label: `Parallel ${n}`, description: "", permittedTools: [] }], note: `save ${n}` })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(["stale_intent_catalog", "stale_intent_catalog", "stale_intent_catalog"]);
    const after = await getIntentCatalogForAdmin(admin, "retail");
    expect(after.intents.filter((i) => i.name.startsWith("parallel_"))).toHaveLength(1);
  });
});
