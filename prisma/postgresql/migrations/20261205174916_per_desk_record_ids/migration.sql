-- DropForeignKey
ALTER TABLE "ticket" DROP CONSTRAINT "ticket_accountId_fkey";

-- DropForeignKey
ALTER TABLE "task" DROP CONSTRAINT "task_ticketId_fkey";

-- DropForeignKey
ALTER TABLE "invoice" DROP CONSTRAINT "invoice_accountId_fkey";

-- DropForeignKey
ALTER TABLE "shipment" DROP CONSTRAINT "shipment_accountId_fkey";

-- DropIndex
DROP INDEX "ticket_accountId_idx";

-- DropIndex
DROP INDEX "task_ticketId_idx";

-- DropIndex
DROP INDEX "invoice_accountId_idx";

-- DropIndex
DROP INDEX "shipment_accountId_idx";

-- AlterTable
ALTER TABLE "customer_account" DROP CONSTRAINT "customer_account_pkey",
ALTER COLUMN "desk" DROP DEFAULT,
ADD CONSTRAINT "customer_account_pkey" PRIMARY KEY ("desk", "id");

-- AlterTable (hand-written: the new desk columns are filled before they become NOT NULL and keys)
ALTER TABLE "ticket" ADD COLUMN "desk" TEXT;
ALTER TABLE "task" ADD COLUMN "desk" TEXT;
ALTER TABLE "invoice" ADD COLUMN "desk" TEXT;
ALTER TABLE "shipment" ADD COLUMN "desk" TEXT;

-- Each existing ticket, invoice and shipment takes its account's desk (ids were global, so one account matches); each task its ticket's.
UPDATE "ticket" t SET "desk" = COALESCE((SELECT a."desk" FROM "customer_account" a WHERE a."id" = t."accountId"), 'freight');
UPDATE "task" t SET "desk" = COALESCE((SELECT k."desk" FROM "ticket" k WHERE k."id" = t."ticketId"), 'freight');
UPDATE "invoice" t SET "desk" = COALESCE((SELECT a."desk" FROM "customer_account" a WHERE a."id" = t."accountId"), 'freight');
UPDATE "shipment" t SET "desk" = COALESCE((SELECT a."desk" FROM "customer_account" a WHERE a."id" = t."accountId"), 'freight');

ALTER TABLE "ticket" DROP CONSTRAINT "ticket_pkey",
ALTER COLUMN "desk" SET NOT NULL,
ADD CONSTRAINT "ticket_pkey" PRIMARY KEY ("desk", "id");

ALTER TABLE "task" ALTER COLUMN "desk" SET NOT NULL;

ALTER TABLE "invoice" DROP CONSTRAINT "invoice_pkey",
ALTER COLUMN "desk" SET NOT NULL,
ADD CONSTRAINT "invoice_pkey" PRIMARY KEY ("desk", "id");

ALTER TABLE "shipment" DROP CONSTRAINT "shipment_pkey",
ALTER COLUMN "desk" SET NOT NULL,
ADD CONSTRAINT "shipment_pkey" PRIMARY KEY ("desk", "id");

-- CreateIndex
CREATE INDEX "ticket_desk_accountId_idx" ON "ticket"("desk", "accountId");

-- CreateIndex
CREATE INDEX "task_desk_ticketId_idx" ON "task"("desk", "ticketId");

-- CreateIndex
CREATE INDEX "invoice_desk_accountId_idx" ON "invoice"("desk", "accountId");

-- CreateIndex
CREATE INDEX "shipment_desk_accountId_idx" ON "shipment"("desk", "accountId");

-- AddForeignKey
ALTER TABLE "ticket" ADD CONSTRAINT "ticket_desk_accountId_fkey" FOREIGN KEY ("desk", "accountId") REFERENCES "customer_account"("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task" ADD CONSTRAINT "task_desk_ticketId_fkey" FOREIGN KEY ("desk", "ticketId") REFERENCES "ticket"("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice" ADD CONSTRAINT "invoice_desk_accountId_fkey" FOREIGN KEY ("desk", "accountId") REFERENCES "customer_account"("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "shipment" ADD CONSTRAINT "shipment_desk_accountId_fkey" FOREIGN KEY ("desk", "accountId") REFERENCES "customer_account"("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
