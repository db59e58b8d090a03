-- AlterTable
ALTER TABLE "api_key" ADD COLUMN "expiresAt" DATETIME;
ALTER TABLE "api_key" ADD COLUMN "lastUsedAt" DATETIME;
ALTER TABLE "api_key" ADD COLUMN "name" TEXT;
