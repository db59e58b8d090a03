-- AlterTable
ALTER TABLE "run" ADD COLUMN "assignedAt" DATETIME;
ALTER TABLE "run" ADD COLUMN "assigneeId" TEXT;

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
CREATE INDEX "run_desk_status_assigneeId_idx" ON "run"("desk", "status", "assigneeId");
