-- CreateTable
CREATE TABLE "staged_effect" (
    "id" TEXT NOT NULL,
    "executionId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "detail" TEXT,
    "stagedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "staged_effect_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "staged_effect_executionId_key" ON "staged_effect"("executionId");

-- CreateIndex
CREATE INDEX "staged_effect_runId_status_idx" ON "staged_effect"("runId", "status");
