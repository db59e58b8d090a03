-- AlterTable
ALTER TABLE "integration_key" ADD COLUMN     "lastUsedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "sign_in_limit" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "attempts" INTEGER NOT NULL,

    CONSTRAINT "sign_in_limit_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "sign_in_limit_windowStart_idx" ON "sign_in_limit"("windowStart");
