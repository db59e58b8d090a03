import { deleteRecordEndpoint, getRecordEndpoint, putRecordEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { DomainError } from "@/lib/errors/domain-error";
import { prisma } from "@/lib/server/db/db";
import { readRecord } from "@/lib/server/records/read-record";
import { recordsDesk } from "@/lib/server/records/records-desk";
import { syncRecord } from "@/lib/server/records/sync-record";

/** `PUT /api/v1/records/{kind}/{id}` → 200 `{record, applied, reason?}`, integration key only (lib/api/endpoints/records-api.ts `putRecordEndpoint`). */
export const PUT = route(putRecordEndpoint, async ({ caller, params, query, body }) => {
  const desk = await recordsDesk(prisma, caller.desk, query.desk);
  return { body: await syncRecord(desk, params.kind, params.id, "put", body, { kind: "integration", id: caller.id }) };
});

/** `DELETE /api/v1/records/{kind}/{id}?sourceVersion=&sourceUpdatedAt=` → 200 `{record, applied, reason?}` (a tombstone), integration key only (`deleteRecordEndpoint`). */
export const DELETE = route(deleteRecordEndpoint, async ({ caller, params, query }) => {
  const desk = await recordsDesk(prisma, caller.desk, query.desk);
  const version = /^\d{1,16}$/.test(query.sourceVersion) ? Number(query.sourceVersion) : query.sourceVersion;
  return { body: await syncRecord(desk, params.kind, params.id, "delete", { sourceVersion: version, sourceUpdatedAt: query.sourceUpdatedAt }, { kind: "integration", id: caller.id }) };
});

/** `GET /api/v1/records/{kind}/{id}` → 200 `{record}` as this desk holds it; another desk's or a missing one is 404 (`getRecordEndpoint`). */
export const GET = route(getRecordEndpoint, async ({ caller, params, query }) => {
  const desk = await recordsDesk(prisma, caller.desk, query.desk);
  const record = await readRecord(prisma, desk, params.kind, params.id);
  if (!record) throw new DomainError("not_found", `There is no ${params.kind} ${params.id} on this desk.`);
  return { body: { record } };
});
