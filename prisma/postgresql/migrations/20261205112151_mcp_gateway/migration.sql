-- AlterTable
ALTER TABLE "mcp_upstream" ADD COLUMN     "toolNames" JSON,
ADD COLUMN     "toolsImportedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "gateway_call" (
    "id" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "upstreamId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "taskId" TEXT,
    "runId" TEXT,
    "stepId" TEXT,
    "arguments" JSON NOT NULL,
    "status" TEXT NOT NULL,
    "result" JSON,
    "error" TEXT,
    "idempotencyKey" TEXT,
    "callingSince" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "gateway_call_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "gateway_call_kind_status_createdAt_idx" ON "gateway_call"("kind", "status", "createdAt");

-- CreateIndex
CREATE INDEX "gateway_call_desk_agentId_createdAt_idx" ON "gateway_call"("desk", "agentId", "createdAt");

-- CreateIndex
CREATE INDEX "gateway_call_agentId_stepId_idx" ON "gateway_call"("agentId", "stepId");

-- CreateIndex
CREATE UNIQUE INDEX "gateway_call_runId_stepId_key" ON "gateway_call"("runId", "stepId");
