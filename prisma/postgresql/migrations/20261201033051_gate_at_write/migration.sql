-- The SQLite migration of the same name also backfills columns of rows that existed before it.
-- Not needed here: a PostgreSQL database gets this history from empty (PostgreSQL support came after it).
-- AlterTable
ALTER TABLE "run" ADD COLUMN     "addition" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "supersededById" TEXT,
ADD COLUMN     "supersedesId" TEXT;

-- AlterTable
ALTER TABLE "approval" ADD COLUMN     "amountCurrency" TEXT,
ADD COLUMN     "amountMinor" INTEGER,
ADD COLUMN     "targetId" TEXT,
ADD COLUMN     "targetKind" TEXT;

-- AlterTable
ALTER TABLE "step_execution" ADD COLUMN     "flag" TEXT,
ADD COLUMN     "leaseExpiresAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "approval_targetKind_targetId_state_idx" ON "approval"("targetKind", "targetId", "state");
