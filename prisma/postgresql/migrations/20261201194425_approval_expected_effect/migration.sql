-- AlterTable
ALTER TABLE "approval" ADD COLUMN     "expectedEffect" JSON;
