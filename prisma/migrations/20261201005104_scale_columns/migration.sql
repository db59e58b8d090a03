-- DropIndex
DROP INDEX "audit_event_type_idx";

-- AlterTable
ALTER TABLE "idempotency_record" ADD COLUMN "requestHash" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL DEFAULT 1,
    "approvedVersion" INTEGER,
    "boundTaskRevision" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "escalateAt" DATETIME NOT NULL,
    "escalatedAt" DATETIME,
    "rejectionReason" TEXT,
    "stopReason" JSONB,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "ticketId" TEXT NOT NULL DEFAULT '',
    "accountId" TEXT NOT NULL DEFAULT '',
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "createdDay" TEXT NOT NULL DEFAULT '',
    "stepCount" INTEGER NOT NULL DEFAULT 0,
    "gatedCount" INTEGER NOT NULL DEFAULT 0,
    "warningCount" INTEGER NOT NULL DEFAULT 0,
    "editCount" INTEGER NOT NULL DEFAULT 0,
    "editTouched" JSONB,
    "editFraction" REAL,
    CONSTRAINT "run_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agent" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_run" ("agentId", "approvedVersion", "boundTaskRevision", "createdAt", "escalateAt", "escalatedAt", "expiresAt", "id", "idempotencyKey", "planVersion", "rejectionReason", "requestHash", "status", "stopReason", "taskId", "updatedAt") SELECT "agentId", "approvedVersion", "boundTaskRevision", "createdAt", "escalateAt", "escalatedAt", "expiresAt", "id", "idempotencyKey", "planVersion", "rejectionReason", "requestHash", "status", "stopReason", "taskId", "updatedAt" FROM "run";
DROP TABLE "run";
ALTER TABLE "new_run" RENAME TO "run";
CREATE INDEX "run_status_expiresAt_idx" ON "run"("status", "expiresAt");
CREATE INDEX "run_status_escalateAt_idx" ON "run"("status", "escalateAt");
CREATE INDEX "run_desk_createdAt_idx" ON "run"("desk", "createdAt");
CREATE INDEX "run_createdAt_idx" ON "run"("createdAt");
CREATE INDEX "run_createdDay_idx" ON "run"("createdDay");
CREATE INDEX "run_taskId_idx" ON "run"("taskId");
CREATE UNIQUE INDEX "run_agentId_idempotencyKey_key" ON "run"("agentId", "idempotencyKey");
CREATE TABLE "new_plan_edit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "fromVersion" INTEGER NOT NULL,
    "toVersion" INTEGER NOT NULL,
    "editorId" TEXT NOT NULL,
    "before" JSONB NOT NULL,
    "after" JSONB NOT NULL,
    "diff" JSONB NOT NULL,
    "touchedCount" INTEGER NOT NULL DEFAULT 0,
    "sizeFraction" REAL NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "plan_edit_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_plan_edit" ("after", "before", "createdAt", "diff", "editorId", "fromVersion", "id", "runId", "toVersion") SELECT "after", "before", "createdAt", "diff", "editorId", "fromVersion", "id", "runId", "toVersion" FROM "plan_edit";
DROP TABLE "plan_edit";
ALTER TABLE "new_plan_edit" RENAME TO "plan_edit";
CREATE INDEX "plan_edit_createdAt_idx" ON "plan_edit"("createdAt");
CREATE UNIQUE INDEX "plan_edit_runId_toVersion_key" ON "plan_edit"("runId", "toVersion");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "step_execution_status_claimedAt_idx" ON "step_execution"("status", "claimedAt");

-- CreateIndex
CREATE INDEX "audit_event_type_seq_idx" ON "audit_event"("type", "seq");

-- Backfill the copied facts of runs that existed before this migration.
UPDATE "run" SET "ticketId" = COALESCE((SELECT "ticketId" FROM "task" WHERE "task"."id" = "run"."taskId"), '');
UPDATE "run" SET "accountId" = COALESCE((SELECT "accountId" FROM "ticket" WHERE "ticket"."id" = "run"."ticketId"), '');
UPDATE "run" SET "desk" = COALESCE((SELECT "desk" FROM "customer_account" WHERE "customer_account"."id" = "run"."accountId"), 'freight');
UPDATE "run" SET "createdDay" = substr("createdAt", 1, 10);
UPDATE "run" SET "stepCount" = COALESCE((SELECT json_array_length("steps") FROM "plan_version" WHERE "plan_version"."runId" = "run"."id" AND "plan_version"."version" = "run"."planVersion"), 0);
UPDATE "run" SET "gatedCount" = COALESCE((SELECT count(*) FROM "plan_version", json_each("plan_version"."validation", '$.gate') WHERE "plan_version"."runId" = "run"."id" AND "plan_version"."version" = "run"."planVersion" AND json_each.value = 'approval_required'), 0);
UPDATE "run" SET "warningCount" = COALESCE((SELECT count(*) FROM "plan_version", json_each("plan_version"."validation", '$.issues') WHERE "plan_version"."runId" = "run"."id" AND "plan_version"."version" = "run"."planVersion" AND json_extract(json_each.value, '$.severity') = 'warning'), 0);
UPDATE "run" SET "editCount" = (SELECT count(*) FROM "plan_edit" WHERE "plan_edit"."runId" = "run"."id");
