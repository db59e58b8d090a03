-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN "tags" JSONB;

-- AlterTable
ALTER TABLE "run" ADD COLUMN "policyVersion" INTEGER;

-- CreateTable
CREATE TABLE "gate_policy_version" (
    "version" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "createdById" TEXT,
    "note" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "gate_policy_rule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "policyVersion" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT,
    "desk" TEXT,
    "accountId" TEXT,
    "accountTag" TEXT,
    "minAmountMinor" INTEGER,
    "maxAmountMinor" INTEGER,
    "currency" TEXT,
    "decision" TEXT NOT NULL,
    "authorMayApprove" BOOLEAN NOT NULL DEFAULT true,
    "expirySeconds" INTEGER,
    "escalateSeconds" INTEGER,
    "note" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "gate_policy_rule_policyVersion_fkey" FOREIGN KEY ("policyVersion") REFERENCES "gate_policy_version" ("version") ON DELETE RESTRICT ON UPDATE CASCADE
);

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
    "expiresAt" DATETIME NOT NULL,
    "approverSlot" INTEGER NOT NULL DEFAULT 1,
    "approvalsRequired" INTEGER NOT NULL DEFAULT 1,
    "policyVersion" INTEGER,
    "policyRuleId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "approval_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_approval" ("acknowledged", "amountCurrency", "amountMinor", "approverId", "args", "authority", "boundTaskRevision", "createdAt", "digest", "expiresAt", "id", "planVersion", "runId", "state", "stepId", "target", "targetId", "targetKind", "tool", "updatedAt") SELECT "acknowledged", "amountCurrency", "amountMinor", "approverId", "args", "authority", "boundTaskRevision", "createdAt", "digest", "expiresAt", "id", "planVersion", "runId", "state", "stepId", "target", "targetId", "targetKind", "tool", "updatedAt" FROM "approval";
DROP TABLE "approval";
ALTER TABLE "new_approval" RENAME TO "approval";
CREATE INDEX "approval_runId_state_idx" ON "approval"("runId", "state");
CREATE INDEX "approval_targetKind_targetId_state_idx" ON "approval"("targetKind", "targetId", "state");
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverSlot_key" ON "approval"("runId", "planVersion", "stepId", "approverSlot");
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverId_key" ON "approval"("runId", "planVersion", "stepId", "approverId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "gate_policy_rule_policyVersion_position_key" ON "gate_policy_rule"("policyVersion", "position");
