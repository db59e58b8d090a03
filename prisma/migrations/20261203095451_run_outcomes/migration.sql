-- AlterTable
ALTER TABLE "integration_key" ADD COLUMN "desk" TEXT;

-- CreateTable
CREATE TABLE "ticket_event" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "ticketId" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "detail" TEXT,
    "integrationKeyId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "run_outcome" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "desk" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "edited" BOOLEAN NOT NULL,
    "editorId" TEXT,
    "executedAt" DATETIME NOT NULL,
    "executedDay" TEXT NOT NULL,
    "moneyOutMinor" INTEGER NOT NULL DEFAULT 0,
    "moneyDifferenceMinor" INTEGER NOT NULL DEFAULT 0,
    "reopened" BOOLEAN NOT NULL DEFAULT false,
    "chargeback" BOOLEAN NOT NULL DEFAULT false,
    "overCompensation" BOOLEAN NOT NULL DEFAULT false,
    "beyondCap" BOOLEAN NOT NULL DEFAULT false,
    "resolved" BOOLEAN NOT NULL DEFAULT false,
    "customerReplied" BOOLEAN NOT NULL DEFAULT false,
    "commitmentSent" BOOLEAN NOT NULL DEFAULT false,
    "suggestion" TEXT,
    "record" JSONB NOT NULL,
    "labelled" BOOLEAN NOT NULL DEFAULT false,
    "label" TEXT,
    "labelReason" TEXT,
    "labelledById" TEXT,
    "labelledAt" DATETIME,
    "computedAt" DATETIME NOT NULL,
    CONSTRAINT "run_outcome_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "run_outcome_money" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "writtenMinor" INTEGER NOT NULL,
    "proposedMinor" INTEGER NOT NULL,
    "over" BOOLEAN NOT NULL,
    "desk" TEXT NOT NULL,
    "executedDay" TEXT NOT NULL,
    CONSTRAINT "run_outcome_money_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run_outcome" ("runId") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ticket_event_taskId_at_idx" ON "ticket_event"("taskId", "at");

-- CreateIndex
CREATE INDEX "run_outcome_edited_labelled_moneyDifferenceMinor_runId_idx" ON "run_outcome"("edited", "labelled", "moneyDifferenceMinor" DESC, "runId");

-- CreateIndex
CREATE INDEX "run_outcome_taskId_idx" ON "run_outcome"("taskId");

-- CreateIndex
CREATE INDEX "run_outcome_edited_label_idx" ON "run_outcome"("edited", "label");

-- CreateIndex
CREATE INDEX "run_outcome_edited_overCompensation_executedDay_idx" ON "run_outcome"("edited", "overCompensation", "executedDay");

-- CreateIndex
CREATE INDEX "run_outcome_editorId_overCompensation_idx" ON "run_outcome"("editorId", "overCompensation");

-- CreateIndex
CREATE INDEX "run_outcome_money_runId_idx" ON "run_outcome_money"("runId");

-- CreateIndex
CREATE INDEX "run_outcome_money_over_tool_idx" ON "run_outcome_money"("over", "tool");
