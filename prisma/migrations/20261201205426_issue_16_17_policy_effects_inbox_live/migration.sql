-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN "tags" JSONB;

-- AlterTable
ALTER TABLE "run" ADD COLUMN "assignedAt" DATETIME;
ALTER TABLE "run" ADD COLUMN "assigneeId" TEXT;
ALTER TABLE "run" ADD COLUMN "policyVersion" INTEGER;

-- CreateTable
CREATE TABLE "run_step" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "stepId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "amountMinor" INTEGER,
    "amountCurrency" TEXT,
    "gated" BOOLEAN NOT NULL,
    CONSTRAINT "run_step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "approval_request" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "stepId" TEXT,
    "toUserId" TEXT,
    "toRole" TEXT,
    "note" TEXT NOT NULL,
    "byUserId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" DATETIME,
    CONSTRAINT "approval_request_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "notification" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "runId" TEXT,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readAt" DATETIME
);

-- CreateTable
CREATE TABLE "step_suggestion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "step" JSONB NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "byUserId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "decidedById" TEXT,
    "decidedAt" DATETIME,
    "reason" TEXT,
    "acceptedVersion" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

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

-- CreateTable
CREATE TABLE "presence" (
    "userId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "mode" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL DEFAULT '',
    "seenAt" DATETIME NOT NULL,
    "changedAt" DATETIME NOT NULL,

    PRIMARY KEY ("userId", "runId")
);

-- CreateTable
CREATE TABLE "webhook_delivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "event" TEXT NOT NULL,
    "runId" TEXT,
    "url" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL,
    "deliveredAt" DATETIME,
    "lastError" TEXT,
    "lastStatus" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
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
    "expectedEffect" JSONB,
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
CREATE INDEX "run_step_tool_amountMinor_idx" ON "run_step"("tool", "amountMinor");

-- CreateIndex
CREATE INDEX "run_step_gated_tool_amountMinor_idx" ON "run_step"("gated", "tool", "amountMinor");

-- CreateIndex
CREATE UNIQUE INDEX "run_step_runId_stepId_key" ON "run_step"("runId", "stepId");

-- CreateIndex
CREATE INDEX "approval_request_toUserId_resolvedAt_idx" ON "approval_request"("toUserId", "resolvedAt");

-- CreateIndex
CREATE INDEX "approval_request_toRole_resolvedAt_idx" ON "approval_request"("toRole", "resolvedAt");

-- CreateIndex
CREATE INDEX "approval_request_runId_idx" ON "approval_request"("runId");

-- CreateIndex
CREATE INDEX "notification_userId_readAt_createdAt_idx" ON "notification"("userId", "readAt", "createdAt");

-- CreateIndex
CREATE INDEX "step_suggestion_runId_state_idx" ON "step_suggestion"("runId", "state");

-- CreateIndex
CREATE INDEX "step_suggestion_state_decidedAt_idx" ON "step_suggestion"("state", "decidedAt");

-- CreateIndex
CREATE UNIQUE INDEX "gate_policy_rule_policyVersion_position_key" ON "gate_policy_rule"("policyVersion", "position");

-- CreateIndex
CREATE INDEX "presence_runId_seenAt_idx" ON "presence"("runId", "seenAt");

-- CreateIndex
CREATE INDEX "presence_seenAt_idx" ON "presence"("seenAt");

-- CreateIndex
CREATE INDEX "presence_changedAt_idx" ON "presence"("changedAt");

-- CreateIndex
CREATE INDEX "webhook_delivery_status_nextAttemptAt_idx" ON "webhook_delivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "webhook_delivery_createdAt_id_idx" ON "webhook_delivery"("createdAt", "id");

-- CreateIndex
CREATE INDEX "run_desk_status_assigneeId_idx" ON "run"("desk", "status", "assigneeId");
