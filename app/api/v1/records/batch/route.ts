import { recordBatchEndpoint } from "@/lib/api/endpoints";
import { DomainError } from "@/lib/errors/domain-error";
import { prisma } from "@/lib/server/db/db";
import { recordsDesk } from "@/lib/server/records/records-desk";
import { batchMaxBytes, syncRecordBatch } from "@/lib/server/records/sync-record-batch";
import { route } from "@/lib/server/route/route";

/**
 * `POST /api/v1/records/batch` (NDJSON) → 200 `{lines, applied, ignored, errors, moreErrors}`,
 * integration key only (lib/api/endpoints/records-api.ts `recordBatchEndpoint`). The body is read
 * here as a stream, line by line (the wrapper's JSON reading stops at 1 MiB), bounded by
 * PLANDESK_RECORDS_BATCH_MAX_BYTES: a declared Content-Length above it is 413 before any work.
 */
export const POST = route(recordBatchEndpoint, async ({ req, caller, query }) => {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-ndjson") throw new DomainError("bad_request", "Send the records as Content-Type: application/x-ndjson, one JSON record per line.");
  const max = batchMaxBytes();
  if (Number(req.headers.get("content-length") ?? "0") > max) throw new DomainError("payload_too_large", `A batch may be at most ${max} bytes; send the rest in another request.`, { limitBytes: max });
  const desk = await recordsDesk(prisma, caller.desk, query.desk);
  return { body: await syncRecordBatch(desk, req.body, { kind: "integration", id: caller.id }, { maxBytes: max }) };
});
