-- AlterTable
ALTER TABLE "run" ADD COLUMN     "requestHash" TEXT;
