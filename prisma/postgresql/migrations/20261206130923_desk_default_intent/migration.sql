-- AlterTable
ALTER TABLE "desk" ADD COLUMN     "defaultIntent" TEXT;
