-- CreateTable
CREATE TABLE "integration_key" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "integration_key_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "integration_key_hash_key" ON "integration_key"("hash");

-- CreateIndex
CREATE INDEX "run_status_createdAt_idx" ON "run"("status", "createdAt");

-- CreateIndex
CREATE INDEX "run_desk_status_createdAt_idx" ON "run"("desk", "status", "createdAt");
