-- AlterTable
ALTER TABLE "user" ADD COLUMN     "desk" TEXT NOT NULL DEFAULT 'freight';

-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN     "desk" TEXT NOT NULL DEFAULT 'freight';
