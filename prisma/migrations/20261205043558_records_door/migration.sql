-- DropIndex
DROP INDEX "holiday_destination_date_key";

-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN "deletedAt" DATETIME;
ALTER TABLE "customer_account" ADD COLUMN "sourceUpdatedAt" DATETIME;
ALTER TABLE "customer_account" ADD COLUMN "sourceVersion" BIGINT;
ALTER TABLE "customer_account" ADD COLUMN "syncedAt" DATETIME;

-- AlterTable
ALTER TABLE "invoice" ADD COLUMN "deletedAt" DATETIME;
ALTER TABLE "invoice" ADD COLUMN "sourceUpdatedAt" DATETIME;
ALTER TABLE "invoice" ADD COLUMN "sourceVersion" BIGINT;
ALTER TABLE "invoice" ADD COLUMN "syncedAt" DATETIME;

-- AlterTable
ALTER TABLE "shipment" ADD COLUMN "deletedAt" DATETIME;
ALTER TABLE "shipment" ADD COLUMN "sourceUpdatedAt" DATETIME;
ALTER TABLE "shipment" ADD COLUMN "sourceVersion" BIGINT;
ALTER TABLE "shipment" ADD COLUMN "syncedAt" DATETIME;

-- AlterTable
ALTER TABLE "holiday" ADD COLUMN "deletedAt" DATETIME;
ALTER TABLE "holiday" ADD COLUMN "desk" TEXT;
ALTER TABLE "holiday" ADD COLUMN "sourceUpdatedAt" DATETIME;
ALTER TABLE "holiday" ADD COLUMN "sourceVersion" BIGINT;
ALTER TABLE "holiday" ADD COLUMN "syncedAt" DATETIME;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN "maxRecordAgeMinutes" INTEGER;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_approval" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "target" JSONB,
    "args" JSONB NOT NULL,
    "digest" TEXT NOT NULL,
    "boundTaskRevision" INTEGER NOT NULL,
    "approverId" TEXT,
    "authority" JSONB NOT NULL,
    "acknowledged" JSONB NOT NULL,
    "targetKind" TEXT,
    "targetId" TEXT,
    "amountMinor" INTEGER,
    "amountCurrency" TEXT,
    "state" TEXT NOT NULL,
    "expectedEffect" JSONB,
    "expiresAt" DATETIME NOT NULL,
    "approverSlot" INTEGER NOT NULL DEFAULT 1,
    "approvalsRequired" INTEGER NOT NULL DEFAULT 1,
    "policyVersion" INTEGER,
    "policyRuleId" TEXT,
    "recordVersions" JSONB,
    "holdOpen" BOOLEAN NOT NULL DEFAULT false,
    "holdUntilVersion" BIGINT,
    "holdSince" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "approval_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_approval" ("acknowledged", "amountCurrency", "amountMinor", "approvalsRequired", "approverId", "approverSlot", "args", "authority", "boundTaskRevision", "createdAt", "digest", "expectedEffect", "expiresAt", "id", "planVersion", "policyRuleId", "policyVersion", "runId", "state", "stepId", "target", "targetId", "targetKind", "tool", "updatedAt") SELECT "acknowledged", "amountCurrency", "amountMinor", "approvalsRequired", "approverId", "approverSlot", "args", "authority", "boundTaskRevision", "createdAt", "digest", "expectedEffect", "expiresAt", "id", "planVersion", "policyRuleId", "policyVersion", "runId", "state", "stepId", "target", "targetId", "targetKind", "tool", "updatedAt" FROM "approval";
DROP TABLE "approval";
ALTER TABLE "new_approval" RENAME TO "approval";
CREATE INDEX "approval_runId_state_idx" ON "approval"("runId", "state");
CREATE INDEX "approval_targetKind_targetId_state_idx" ON "approval"("targetKind", "targetId", "state");
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverSlot_key" ON "approval"("runId", "planVersion", "stepId", "approverSlot");
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverId_key" ON "approval"("runId", "planVersion", "stepId", "approverId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "holiday_destination_date_idx" ON "holiday"("destination", "date");
