-- The SQLite migration of the same name also backfills columns of rows that existed before it.
-- Not needed here: a PostgreSQL database gets this history from empty (PostgreSQL support came after it).
-- DropIndex
DROP INDEX "run_status_idx";

-- DropIndex
DROP INDEX "audit_event_type_idx";

-- AlterTable
ALTER TABLE "run" ADD COLUMN     "accountId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "createdDay" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "desk" TEXT NOT NULL DEFAULT 'freight',
ADD COLUMN     "editCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "editFraction" DOUBLE PRECISION,
ADD COLUMN     "editTouched" JSON,
ADD COLUMN     "gatedCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "stepCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "ticketId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "warningCount" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "plan_edit" ADD COLUMN     "sizeFraction" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "touchedCount" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "idempotency_record" ADD COLUMN     "requestHash" TEXT;

-- CreateIndex
CREATE INDEX "run_status_expiresAt_idx" ON "run"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "run_status_escalateAt_idx" ON "run"("status", "escalateAt");

-- CreateIndex
CREATE INDEX "run_desk_createdAt_idx" ON "run"("desk", "createdAt");

-- CreateIndex
CREATE INDEX "run_createdAt_idx" ON "run"("createdAt");

-- CreateIndex
CREATE INDEX "run_createdDay_idx" ON "run"("createdDay");

-- CreateIndex
CREATE INDEX "plan_edit_createdAt_idx" ON "plan_edit"("createdAt");

-- CreateIndex
CREATE INDEX "step_execution_status_claimedAt_idx" ON "step_execution"("status", "claimedAt");

-- CreateIndex
CREATE INDEX "audit_event_type_seq_idx" ON "audit_event"("type", "seq");
