-- AlterTable
ALTER TABLE "approval" ADD COLUMN "amountCurrency" TEXT;
ALTER TABLE "approval" ADD COLUMN "amountMinor" INTEGER;
ALTER TABLE "approval" ADD COLUMN "targetId" TEXT;
ALTER TABLE "approval" ADD COLUMN "targetKind" TEXT;

-- AlterTable
ALTER TABLE "step_execution" ADD COLUMN "flag" TEXT;
ALTER TABLE "step_execution" ADD COLUMN "leaseExpiresAt" DATETIME;

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
    "catalogVersion" INTEGER,
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
    "addition" BOOLEAN NOT NULL DEFAULT false,
    "supersedesId" TEXT,
    "supersededById" TEXT,
    CONSTRAINT "run_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agent" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_run" ("accountId", "agentId", "approvedVersion", "boundTaskRevision", "catalogVersion", "createdAt", "createdDay", "desk", "editCount", "editFraction", "editTouched", "escalateAt", "escalatedAt", "expiresAt", "gatedCount", "id", "idempotencyKey", "planVersion", "rejectionReason", "requestHash", "status", "stepCount", "stopReason", "taskId", "ticketId", "updatedAt", "warningCount") SELECT "accountId", "agentId", "approvedVersion", "boundTaskRevision", "catalogVersion", "createdAt", "createdDay", "desk", "editCount", "editFraction", "editTouched", "escalateAt", "escalatedAt", "expiresAt", "gatedCount", "id", "idempotencyKey", "planVersion", "rejectionReason", "requestHash", "status", "stepCount", "stopReason", "taskId", "ticketId", "updatedAt", "warningCount" FROM "run";
DROP TABLE "run";
ALTER TABLE "new_run" RENAME TO "run";
CREATE INDEX "run_status_expiresAt_idx" ON "run"("status", "expiresAt");
CREATE INDEX "run_status_escalateAt_idx" ON "run"("status", "escalateAt");
CREATE INDEX "run_status_createdAt_idx" ON "run"("status", "createdAt");
CREATE INDEX "run_desk_createdAt_idx" ON "run"("desk", "createdAt");
CREATE INDEX "run_desk_status_createdAt_idx" ON "run"("desk", "status", "createdAt");
CREATE INDEX "run_createdAt_idx" ON "run"("createdAt");
CREATE INDEX "run_createdDay_idx" ON "run"("createdDay");
CREATE INDEX "run_taskId_idx" ON "run"("taskId");
CREATE UNIQUE INDEX "run_agentId_idempotencyKey_key" ON "run"("agentId", "idempotencyKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "approval_targetKind_targetId_state_idx" ON "approval"("targetKind", "targetId", "state");

-- Backfill what existing approvals draw on, from their stored target and arguments.
UPDATE "approval" SET "targetKind" = json_extract("target", '$.kind'), "targetId" = json_extract("target", '$.id') WHERE "target" IS NOT NULL AND json_valid("target");
UPDATE "approval" SET "amountMinor" = json_extract("args", '$.amount.minor'), "amountCurrency" = json_extract("args", '$.amount.currency') WHERE json_valid("args") AND json_type("args", '$.amount.minor') = 'integer';
