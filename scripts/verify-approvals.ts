/**
 * `npm run verify-approvals` — re-checks every signed approval of a run offline and prints, per
 * step, who signed which digest with which key (docs/security.md "Checking a signature offline").
 *
 *   npm run verify-approvals -- --run <runId>        the run's audit trail from DATABASE_URL; the
 *                                                    keys must also be passkeys the approvers hold now
 *   npm run verify-approvals -- --file export.json   the body of GET /api/runs/{runId}/audit, saved;
 *                                                    no database
 *   npm run verify-approvals -- --file diffs.jsonl   the diff corpus (GET /api/audit/diffs.jsonl),
 *                                                    saved: every signed approval its lines carry,
 *                                                    each against the line's plans; no database
 *
 * Exit codes: 0 every signature verifies (also: the run has none, said so); 1 a signature, digest or
 * key does not check; 2 usage, an unreadable file or an unknown run.
 */
import fs from "node:fs";
import { describeCheck, signatureExportSchema, verifySignatureExport, type SignedStepCheck } from "../lib/signatures/verify-export";
import { corpusLineExport, parseCorpus } from "../lib/signatures/verify-corpus";

const USAGE = "Usage: npm run verify-approvals -- --run <runId> | --file <export.json | diffs.jsonl>";

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
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      out(`verify-approvals: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      return { code: 2, checks: [] };
    }
    const asExport = signatureExportSchema.safeParse(jsonOrNull(text));
    if (asExport.success) {
      label = `run ${asExport.data.run.id} (file ${file})`;
      checks = await verifySignatureExport(asExport.data);
    } else {
      const corpus = parseCorpus(text);
      if ("badLine" in corpus || corpus.lines.length === 0) {
        const why = "badLine" in corpus ? `line ${corpus.badLine}: ${corpus.message}` : "it is empty";
        out(`verify-approvals: ${file} is neither a run's audit export (run.id, events) nor a diff corpus (${why})`);
        return { code: 2, checks: [] };
      }
      label = `diff corpus ${file} (${corpus.lines.length} edit${corpus.lines.length === 1 ? "" : "s"})`;
      // an approval of the plan between two edits is on both lines: checked once
      const seen = new Set<string>();
      checks = [];
      for (const line of corpus.lines) {
        for (const c of await verifySignatureExport(corpusLineExport(line))) {
          const key = `${line.runId}:${c.planVersion}:${c.stepId}:${c.approverId}:${c.digest}:${c.credentialId}`;
          if (c.fault === null && seen.has(key)) continue;
          seen.add(key);
          checks.push(c);
        }
      }
    }
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

/** `text` parsed as one JSON value, or null when it is not (e.g. JSON Lines). */
function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
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
