/**
 * `npm run verify-approvals` — re-checks every signed approval of a run offline and prints, per
 * step, who signed which digest with which key (docs/security.md "Checking a signature offline").
 *
 *   npm run verify-approvals -- --run <runId>        the run's audit trail from DATABASE_URL; the
 *                                                    keys must also be passkeys the approvers hold now
 *   npm run verify-approvals -- --file export.json   the body of GET /api/runs/{runId}/audit, saved;
 *                                                    no database
 *
 * Exit codes: 0 every signature verifies (also: the run has none, said so); 1 a signature, digest or
 * key does not check; 2 usage, an unreadable file or an unknown run.
 */
import fs from "node:fs";
import { describeCheck, signatureExportSchema, verifySignatureExport, type SignedStepCheck } from "../lib/signatures/verify-export";

const USAGE = "Usage: npm run verify-approvals -- --run <runId> | --file <export.json>";

/** What one invocation found: the exit code and the lines it printed. `out` is injectable for tests. */
export async function verifyApprovals(argv: string[], out: (line: string) => void = console.log): Promise<{ code: number; checks: SignedStepCheck[] }> {
  const at = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const runId = at("--run");
  const file = at("--file");
  if ((runId === undefined) === (file === undefined)) {
    out(USAGE);
    return { code: 2, checks: [] };
  }
  let checks: SignedStepCheck[];
  let label: string;
  if (file !== undefined) {
    let parsed;
    try {
      parsed = signatureExportSchema.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
    } catch (e) {
      out(`verify-approvals: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      return { code: 2, checks: [] };
    }
    if (!parsed.success) {
      out(`verify-approvals: ${file} is not a run's audit export (run.id, events): ${parsed.error.issues[0]?.message ?? ""}`);
      return { code: 2, checks: [] };
    }
    label = `run ${parsed.data.run.id} (file ${file})`;
    checks = await verifySignatureExport(parsed.data);
  } else {
    const { loadSignatureExport } = await import("../lib/server/signatures/signature-export");
    let loaded;
    try {
      loaded = await loadSignatureExport(runId!);
    } catch (e) {
      out(`verify-approvals: ${e instanceof Error ? e.message : String(e)}`);
      return { code: 2, checks: [] };
    }
    label = `run ${runId}`;
    checks = await verifySignatureExport(loaded.export, loaded.registeredKeys);
  }
  if (checks.length === 0) {
    out(`${label}: no signed approvals.`);
    return { code: 0, checks };
  }
  out(`${label}: ${checks.length} signed approval${checks.length === 1 ? "" : "s"}`);
  for (const c of checks) out(describeCheck(c));
  const failed = checks.filter((c) => c.fault !== null).length;
  out(failed ? `${failed} of ${checks.length} do not verify.` : `All ${checks.length} verify.`);
  return { code: failed ? 1 : 0, checks };
}

if (process.argv[1] && /verify-approvals\.ts$/.test(process.argv[1])) {
  verifyApprovals(process.argv.slice(2))
    .then((r) => {
      process.exitCode = r.code;
    })
    .catch((e) => {
      console.error(`verify-approvals: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 2;
    })
    .finally(async () => {
      // only --run opened the database
      if (process.argv.includes("--run")) await (await import("../lib/server/db/db")).prisma.$disconnect();
    });
}
