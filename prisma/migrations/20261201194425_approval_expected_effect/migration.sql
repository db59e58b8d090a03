-- AlterTable
ALTER TABLE "approval" ADD COLUMN "expectedEffect" JSONB;
