-- DropIndex
DROP INDEX "approval_runId_planVersion_stepId_key";

-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN     "tags" JSON;

-- AlterTable
ALTER TABLE "run" ADD COLUMN     "assignedAt" TIMESTAMP(3),
ADD COLUMN     "assigneeId" TEXT,
ADD COLUMN     "policyVersion" INTEGER;

-- AlterTable
ALTER TABLE "approval" ADD COLUMN     "approvalsRequired" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "approverSlot" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "expectedEffect" JSON,
ADD COLUMN     "policyRuleId" TEXT,
ADD COLUMN     "policyVersion" INTEGER;

-- CreateTable
CREATE TABLE "run_step" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "stepId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "amountMinor" INTEGER,
    "amountCurrency" TEXT,
    "gated" BOOLEAN NOT NULL,

    CONSTRAINT "run_step_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approval_request" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT,
    "toUserId" TEXT,
    "toRole" TEXT,
    "note" TEXT NOT NULL,
    "byUserId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMP(3),

    CONSTRAINT "approval_request_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "runId" TEXT,
    "text" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readAt" TIMESTAMP(3),

    CONSTRAINT "notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "step_suggestion" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "step" JSON NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "byUserId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "decidedById" TEXT,
    "decidedAt" TIMESTAMP(3),
    "reason" TEXT,
    "acceptedVersion" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "step_suggestion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gate_policy_version" (
    "version" INTEGER NOT NULL,
    "createdById" TEXT,
    "note" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gate_policy_version_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "gate_policy_rule" (
    "id" TEXT NOT NULL,
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

    CONSTRAINT "gate_policy_rule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "presence" (
    "userId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "mode" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL DEFAULT '',
    "seenAt" TIMESTAMP(3) NOT NULL,
    "changedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "presence_pkey" PRIMARY KEY ("userId","runId")
);

-- CreateTable
CREATE TABLE "webhook_delivery" (
    "id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "runId" TEXT,
    "url" TEXT NOT NULL,
    "payload" JSON NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "deliveredAt" TIMESTAMP(3),
    "lastError" TEXT,
    "lastStatus" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id")
);

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

-- CreateIndex
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverSlot_key" ON "approval"("runId", "planVersion", "stepId", "approverSlot");

-- CreateIndex
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverId_key" ON "approval"("runId", "planVersion", "stepId", "approverId");

-- AddForeignKey
ALTER TABLE "run_step" ADD CONSTRAINT "run_step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approval_request" ADD CONSTRAINT "approval_request_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "gate_policy_rule" ADD CONSTRAINT "gate_policy_rule_policyVersion_fkey" FOREIGN KEY ("policyVersion") REFERENCES "gate_policy_version"("version") ON DELETE RESTRICT ON UPDATE CASCADE;
