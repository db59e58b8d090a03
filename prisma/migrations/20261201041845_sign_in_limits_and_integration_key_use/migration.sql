-- AlterTable
ALTER TABLE "integration_key" ADD COLUMN "lastUsedAt" DATETIME;

-- CreateTable
CREATE TABLE "sign_in_limit" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "windowStart" DATETIME NOT NULL,
    "attempts" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "sign_in_limit_windowStart_idx" ON "sign_in_limit"("windowStart");
