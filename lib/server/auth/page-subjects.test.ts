/**
 * The cheap existence checks the page layouts run above their loading boundaries, on this file's
 * own database (both dialects): a run is found in the viewer's scope only (an operator's desk;
 * every desk for supervisors and admins), a person and a desk by id; anything else is 404
 * `not_found`, the page's status.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { assertDeskExists, assertRunInScope, assertUserExists } from "./page-subjects";
import { prepareTestDatabase } from "../../../testing/test-support";

let freightRun: string;

beforeAll(async () => {
  await prepareTestDatabase();
  freightRun = (await prisma.run.findFirstOrThrow({ where: { desk: "freight" }, select: { id: true } })).id;
});

const notFound = { code: "not_found" };

describe("a page's subject, checked before its skeleton streams", () => {
  it("a run is found in the viewer's scope only", async () => {
    await expect(assertRunInScope(freightRun, { role: "operator", desk: "freight" })).resolves.toBeUndefined();
    await expect(assertRunInScope(freightRun, { role: "operator", desk: "retail" })).rejects.toMatchObject(notFound);
    await expect(assertRunInScope(freightRun, { role: "supervisor", desk: "retail" })).resolves.toBeUndefined();
    await expect(assertRunInScope("run_does_not_exist", { role: "supervisor", desk: "freight" })).rejects.toMatchObject(notFound);
  });

  it("a person and a desk by id", async () => {
    await expect(assertUserExists("usr_operator")).resolves.toBeUndefined();
    await expect(assertUserExists("usr_nobody")).rejects.toMatchObject(notFound);
    await expect(assertDeskExists("freight")).resolves.toBeUndefined();
    await expect(assertDeskExists("no-such-desk")).rejects.toMatchObject(notFound);
  });
});
