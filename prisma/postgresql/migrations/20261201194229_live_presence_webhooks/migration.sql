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
CREATE INDEX "presence_runId_seenAt_idx" ON "presence"("runId", "seenAt");

-- CreateIndex
CREATE INDEX "presence_seenAt_idx" ON "presence"("seenAt");

-- CreateIndex
CREATE INDEX "presence_changedAt_idx" ON "presence"("changedAt");

-- CreateIndex
CREATE INDEX "webhook_delivery_status_nextAttemptAt_idx" ON "webhook_delivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "webhook_delivery_createdAt_id_idx" ON "webhook_delivery"("createdAt", "id");
