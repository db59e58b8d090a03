-- AlterTable
ALTER TABLE "mcp_upstream" ADD COLUMN "toolNames" JSONB;
ALTER TABLE "mcp_upstream" ADD COLUMN "toolsImportedAt" DATETIME;

-- CreateTable
CREATE TABLE "gateway_call" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "desk" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "upstreamId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "taskId" TEXT,
    "runId" TEXT,
    "stepId" TEXT,
    "arguments" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "result" JSONB,
    "error" TEXT,
    "idempotencyKey" TEXT,
    "callingSince" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "gateway_call_kind_status_createdAt_idx" ON "gateway_call"("kind", "status", "createdAt");

-- CreateIndex
CREATE INDEX "gateway_call_desk_agentId_createdAt_idx" ON "gateway_call"("desk", "agentId", "createdAt");

-- CreateIndex
CREATE INDEX "gateway_call_agentId_stepId_idx" ON "gateway_call"("agentId", "stepId");

-- CreateIndex
CREATE UNIQUE INDEX "gateway_call_runId_stepId_key" ON "gateway_call"("runId", "stepId");
