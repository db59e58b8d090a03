-- AlterTable
ALTER TABLE "integration_key" ADD COLUMN     "scopes" TEXT NOT NULL DEFAULT 'tasks records';
