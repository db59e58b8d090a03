-- CreateTable
CREATE TABLE "staged_effect" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "executionId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "detail" TEXT,
    "stagedAt" DATETIME NOT NULL,
    "endedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "staged_effect_executionId_key" ON "staged_effect"("executionId");

-- CreateIndex
CREATE INDEX "staged_effect_runId_status_idx" ON "staged_effect"("runId", "status");
