-- AlterTable
ALTER TABLE "run" ADD COLUMN     "decisionReason" JSON;
