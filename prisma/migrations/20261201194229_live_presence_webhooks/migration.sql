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
