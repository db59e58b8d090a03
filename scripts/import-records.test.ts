/**
 * `npm run import` against the batch route handler in this process (a fetch that calls
 * app/api/v1/records/batch/route.ts with the real Request), on this file's own database: requests
 * of N lines, the per-line errors with their lines in the file, the exit code, the state file,
 * and `--resume` after a failure sending only what was not confirmed. CSV with JSON cells too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as batchRoute } from "@/app/api/v1/records/batch/route";
import { prisma } from "@/lib/server/db/db";
import { DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { prepareTestDatabase } from "@/testing/test-support";
import { csvCells, importRecords, parseArgs, stateFileOf } from "./import-records";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-import-"));
const sink = () => {
  const out: string[] = [];
  return { out, stderr: { write: (s: string) => out.push(s) } };
};

/** A fetch answering the batch URL with the route handler; `failOn` (1-based) throws on that request, like a dropped connection. */
function inProcess(opts: { failFrom?: number } = {}) {
  const seen: number[] = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(String(init?.body ?? "").split("\n").filter(Boolean).length);
    if (opts.failFrom !== undefined && seen.length >= opts.failFrom) throw new TypeError("fetch failed");
    return batchRoute(new Request(String(input), init));
  }) as typeof fetch;
  return { fetch: f, seen };
}

const at = "2026-03-01T10:00:00Z";
const accountLine = (i: number) => JSON.stringify({ kind: "account", id: `acc_imp_${i}`, name: `Import ${i}`, sourceVersion: 1, sourceUpdatedAt: at });

beforeAll(async () => {
  await prepareTestDatabase();
}, 120_000);

describe("npm run import", () => {
  it("sends requests of N lines, prints refused lines by their line in the file, exits 1, and records the last confirmed line", async () => {
    const file = path.join(dir, "accounts.ndjson");
    const lines = Array.from({ length: 25 }, (_, i) => accountLine(i));
    lines[11] = '{"kind":"account","id":"acc_imp_bad"'; // line 12: not JSON
    fs.writeFileSync(file, lines.join("\n") + "\n");
    const { out, stderr } = sink();
    const { fetch, seen } = inProcess();
    const r = await importRecords({ file, url: "http://plandesk.test", key: DEMO_INTEGRATION_KEY, desk: "freight", linesPerRequest: 10, fetch, stderr });
    expect(seen).toEqual([10, 10, 5]);
    expect(r.exitCode).toBe(1);
    expect(r.errors).toEqual([{ line: 12, code: "invalid_json", message: expect.any(String) }]);
    expect(out.join("")).toMatch(/line 12: invalid_json/);
    expect(out.join("")).toMatch(/records\/s/);
    expect(JSON.parse(fs.readFileSync(stateFileOf(file), "utf8"))).toMatchObject({ confirmedLine: 25, applied: 24, refused: 1 });
    expect(await prisma.customerAccount.count({ where: { id: { startsWith: "acc_imp_" } } })).toBe(24);
  });

  it("after a failure mid-way, --resume sends only the lines the server had not confirmed", async () => {
    const file = path.join(dir, "resume.ndjson");
    fs.writeFileSync(file, Array.from({ length: 30 }, (_, i) => accountLine(100 + i)).join("\n") + "\n");
    const first = inProcess({ failFrom: 2 });
    const r1 = await importRecords({ file, url: "http://plandesk.test", key: DEMO_INTEGRATION_KEY, desk: "freight", linesPerRequest: 10, fetch: first.fetch, stderr: sink().stderr, retryDelaySeconds: 0 });
    expect(r1.exitCode).toBe(2);
    expect(r1.state.confirmedLine).toBe(10);
    const second = inProcess();
    const r2 = await importRecords({ file, url: "http://plandesk.test", key: DEMO_INTEGRATION_KEY, desk: "freight", linesPerRequest: 10, resume: true, fetch: second.fetch, stderr: sink().stderr });
    expect(second.seen).toEqual([10, 10]);
    expect(r2).toMatchObject({ exitCode: 0, state: { confirmedLine: 30, applied: 30, ignored: 0, refused: 0 } });
    // running it all again changes nothing: every version is already stored
    const r3 = await importRecords({ file, url: "http://plandesk.test", key: DEMO_INTEGRATION_KEY, desk: "freight", linesPerRequest: 10, fetch: inProcess().fetch, stderr: sink().stderr });
    expect(r3).toMatchObject({ exitCode: 0, state: { applied: 0, ignored: 30 } });
  });

  it("reads CSV with a header row, --kind, and JSON cells for nested fields", async () => {
    const file = path.join(dir, "invoices.csv");
    fs.writeFileSync(
      file,
      [
        "id,accountId,status,currency,totalMinor,openMinor,fees,dueDate,sourceVersion,sourceUpdatedAt",
        `in_imp_1,acc_imp_0,open,USD,1000,400,"[{""code"":""LATE_FEE"",""amount"":{""minor"":50,""currency"":""USD""}}]",2026-04-30,3,${at}`,
        `in_imp_2,acc_imp_0,open,USD,1000,400,"[{""code"":""LATE_FEE"",""amount"":{""minor"":50,""currency"":""EUR""}}]",2026-04-30,3,${at}`,
      ].join("\n") + "\n",
    );
    const r = await importRecords({ file, url: "http://plandesk.test", key: DEMO_INTEGRATION_KEY, desk: "freight", kind: "invoice", fetch: inProcess().fetch, stderr: sink().stderr });
    expect(r.exitCode).toBe(1);
    expect(r.errors).toEqual([{ line: 3, code: "currency_mismatch", message: expect.any(String) }]);
    expect(await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_imp_1" } } })).toMatchObject({ openMinor: 400, sourceVersion: 3n, fees: [{ code: "LATE_FEE", amount: { minor: 50, currency: "USD" } }] });
  });

  it("a refused request (a wrong key) stops the import with exit code 2", async () => {
    const file = path.join(dir, "nokey.ndjson");
    fs.writeFileSync(file, accountLine(999) + "\n");
    const r = await importRecords({ file, url: "http://plandesk.test", key: "pd_wrong", desk: "freight", fetch: inProcess().fetch, stderr: sink().stderr });
    expect(r.exitCode).toBe(2);
    expect(r.state.confirmedLine).toBe(0);
  });

  it("parses its command line and CSV cells", () => {
    expect(parseArgs(["--desk", "freight", "--url", "http://x", "--key", "pd_k", "--lines", "100", "--resume", "f.ndjson"])).toEqual({ desk: "freight", url: "http://x", key: "pd_k", linesPerRequest: 100, resume: true, file: "f.ndjson" });
    expect(() => parseArgs(["f.ndjson"])).toThrow(/Usage/);
    expect(csvCells('a,"b,c","d""e",')).toEqual(["a", "b,c", 'd"e', ""]);
  });
});
