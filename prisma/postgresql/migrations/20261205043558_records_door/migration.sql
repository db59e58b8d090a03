-- DropIndex
DROP INDEX "holiday_destination_date_key";

-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "sourceUpdatedAt" TIMESTAMP(3),
ADD COLUMN     "sourceVersion" BIGINT,
ADD COLUMN     "syncedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "invoice" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "sourceUpdatedAt" TIMESTAMP(3),
ADD COLUMN     "sourceVersion" BIGINT,
ADD COLUMN     "syncedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "shipment" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "sourceUpdatedAt" TIMESTAMP(3),
ADD COLUMN     "sourceVersion" BIGINT,
ADD COLUMN     "syncedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "holiday" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "desk" TEXT,
ADD COLUMN     "sourceUpdatedAt" TIMESTAMP(3),
ADD COLUMN     "sourceVersion" BIGINT,
ADD COLUMN     "syncedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "approval" ADD COLUMN     "holdOpen" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "holdSince" TIMESTAMP(3),
ADD COLUMN     "holdUntilVersion" BIGINT,
ADD COLUMN     "recordVersions" JSON;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN     "maxRecordAgeMinutes" INTEGER;

-- CreateIndex
CREATE INDEX "holiday_destination_date_idx" ON "holiday"("destination", "date");
