-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_customer_account" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "tags" JSONB,
    "sourceVersion" BIGINT,
    "sourceUpdatedAt" DATETIME,
    "syncedAt" DATETIME,
    "deletedAt" DATETIME,

    PRIMARY KEY ("desk", "id")
);
INSERT INTO "new_customer_account" ("deletedAt", "desk", "id", "name", "sourceUpdatedAt", "sourceVersion", "syncedAt", "tags") SELECT "deletedAt", "desk", "id", "name", "sourceUpdatedAt", "sourceVersion", "syncedAt", "tags" FROM "customer_account";
DROP TABLE "customer_account";
ALTER TABLE "new_customer_account" RENAME TO "customer_account";
CREATE INDEX "customer_account_name_idx" ON "customer_account"("name");
CREATE TABLE "new_ticket" (
    "desk" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("desk", "id"),
    CONSTRAINT "ticket_desk_accountId_fkey" FOREIGN KEY ("desk", "accountId") REFERENCES "customer_account" ("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
-- Each existing ticket, invoice and shipment takes its account's desk (ids were global, so one account matches); each task its ticket's.
INSERT INTO "new_ticket" ("desk", "accountId", "createdAt", "id", "status", "subject") SELECT COALESCE((SELECT a."desk" FROM "customer_account" a WHERE a."id" = "ticket"."accountId"), 'freight'), "accountId", "createdAt", "id", "status", "subject" FROM "ticket";
DROP TABLE "ticket";
ALTER TABLE "new_ticket" RENAME TO "ticket";
CREATE INDEX "ticket_desk_accountId_idx" ON "ticket"("desk", "accountId");
CREATE TABLE "new_task" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "desk" TEXT NOT NULL,
    "ticketId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "body" TEXT NOT NULL,
    "contract" JSONB,
    "textParts" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "task_desk_ticketId_fkey" FOREIGN KEY ("desk", "ticketId") REFERENCES "ticket" ("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_task" ("desk", "body", "contract", "createdAt", "id", "revision", "textParts", "ticketId", "updatedAt") SELECT COALESCE((SELECT k."desk" FROM "ticket" k WHERE k."id" = "task"."ticketId"), 'freight'), "body", "contract", "createdAt", "id", "revision", "textParts", "ticketId", "updatedAt" FROM "task";
DROP TABLE "task";
ALTER TABLE "new_task" RENAME TO "task";
CREATE INDEX "task_desk_ticketId_idx" ON "task"("desk", "ticketId");
CREATE TABLE "new_invoice" (
    "desk" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "totalMinor" INTEGER NOT NULL,
    "openMinor" INTEGER NOT NULL,
    "fees" JSONB NOT NULL,
    "dueDate" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "sourceVersion" BIGINT,
    "sourceUpdatedAt" DATETIME,
    "syncedAt" DATETIME,
    "deletedAt" DATETIME,

    PRIMARY KEY ("desk", "id"),
    CONSTRAINT "invoice_desk_accountId_fkey" FOREIGN KEY ("desk", "accountId") REFERENCES "customer_account" ("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_invoice" ("desk", "accountId", "currency", "deletedAt", "dueDate", "fees", "id", "openMinor", "sourceUpdatedAt", "sourceVersion", "status", "syncedAt", "totalMinor", "version") SELECT COALESCE((SELECT a."desk" FROM "customer_account" a WHERE a."id" = "invoice"."accountId"), 'freight'), "accountId", "currency", "deletedAt", "dueDate", "fees", "id", "openMinor", "sourceUpdatedAt", "sourceVersion", "status", "syncedAt", "totalMinor", "version" FROM "invoice";
DROP TABLE "invoice";
ALTER TABLE "new_invoice" RENAME TO "invoice";
CREATE INDEX "invoice_desk_accountId_idx" ON "invoice"("desk", "accountId");
CREATE TABLE "new_shipment" (
    "desk" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "windowFrom" TEXT NOT NULL,
    "windowTo" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "sourceVersion" BIGINT,
    "sourceUpdatedAt" DATETIME,
    "syncedAt" DATETIME,
    "deletedAt" DATETIME,

    PRIMARY KEY ("desk", "id"),
    CONSTRAINT "shipment_desk_accountId_fkey" FOREIGN KEY ("desk", "accountId") REFERENCES "customer_account" ("desk", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_shipment" ("desk", "accountId", "address", "deletedAt", "destination", "id", "sourceUpdatedAt", "sourceVersion", "status", "syncedAt", "version", "windowFrom", "windowTo") SELECT COALESCE((SELECT a."desk" FROM "customer_account" a WHERE a."id" = "shipment"."accountId"), 'freight'), "accountId", "address", "deletedAt", "destination", "id", "sourceUpdatedAt", "sourceVersion", "status", "syncedAt", "version", "windowFrom", "windowTo" FROM "shipment";
DROP TABLE "shipment";
ALTER TABLE "new_shipment" RENAME TO "shipment";
CREATE INDEX "shipment_desk_accountId_idx" ON "shipment"("desk", "accountId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
