-- AlterTable
ALTER TABLE "agent" ADD COLUMN     "executesTools" JSON;
