-- AlterTable
ALTER TABLE "task" ADD COLUMN "contract" JSONB;
ALTER TABLE "task" ADD COLUMN "textParts" JSONB;

-- AlterTable
ALTER TABLE "task_revision" ADD COLUMN "contract" JSONB;
ALTER TABLE "task_revision" ADD COLUMN "textParts" JSONB;

-- AlterTable
ALTER TABLE "plan_version" ADD COLUMN "reads" JSONB;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN "allowOutsideContract" TEXT;
ALTER TABLE "gate_policy_rule" ADD COLUMN "requiredFields" JSONB;

-- CreateTable
CREATE TABLE "desk" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "desk_intent" (
    "desk" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "permittedTools" JSONB NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("desk", "name")
);

-- CreateTable
CREATE TABLE "refusal_count" (
    "minute" DATETIME NOT NULL,
    "address" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "missing" TEXT NOT NULL,
    "origin" TEXT,
    "count" INTEGER NOT NULL DEFAULT 1,
    "lastAt" DATETIME NOT NULL,

    PRIMARY KEY ("minute", "address", "route", "code")
);

-- CreateTable
CREATE TABLE "session_end" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "userId" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_agent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "allowedTools" JSONB NOT NULL,
    "executesTools" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_agent" ("allowedTools", "createdAt", "id", "name") SELECT "allowedTools", "createdAt", "id", "name" FROM "agent";
DROP TABLE "agent";
ALTER TABLE "new_agent" RENAME TO "agent";
CREATE TABLE "new_run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL DEFAULT 1,
    "approvedVersion" INTEGER,
    "boundTaskRevision" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "escalateAt" DATETIME NOT NULL,
    "escalatedAt" DATETIME,
    "rejectionReason" TEXT,
    "stopReason" JSONB,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    "catalogVersion" INTEGER,
    "policyVersion" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "ticketId" TEXT NOT NULL DEFAULT '',
    "accountId" TEXT NOT NULL DEFAULT '',
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "createdDay" TEXT NOT NULL DEFAULT '',
    "stepCount" INTEGER NOT NULL DEFAULT 0,
    "gatedCount" INTEGER NOT NULL DEFAULT 0,
    "warningCount" INTEGER NOT NULL DEFAULT 0,
    "atStakeMinor" INTEGER NOT NULL DEFAULT 0,
    "riskyStepCount" INTEGER NOT NULL DEFAULT 0,
    "editCount" INTEGER NOT NULL DEFAULT 0,
    "editTouched" JSONB,
    "editFraction" REAL,
    "addition" BOOLEAN NOT NULL DEFAULT false,
    "supersedesId" TEXT,
    "supersededById" TEXT,
    "assigneeId" TEXT,
    "assignedAt" DATETIME,
    CONSTRAINT "run_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agent" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_run" ("accountId", "addition", "agentId", "approvedVersion", "assignedAt", "assigneeId", "boundTaskRevision", "catalogVersion", "createdAt", "createdDay", "desk", "editCount", "editFraction", "editTouched", "escalateAt", "escalatedAt", "expiresAt", "gatedCount", "id", "idempotencyKey", "planVersion", "policyVersion", "rejectionReason", "requestHash", "status", "stepCount", "stopReason", "supersededById", "supersedesId", "taskId", "ticketId", "updatedAt", "warningCount") SELECT "accountId", "addition", "agentId", "approvedVersion", "assignedAt", "assigneeId", "boundTaskRevision", "catalogVersion", "createdAt", "createdDay", "desk", "editCount", "editFraction", "editTouched", "escalateAt", "escalatedAt", "expiresAt", "gatedCount", "id", "idempotencyKey", "planVersion", "policyVersion", "rejectionReason", "requestHash", "status", "stepCount", "stopReason", "supersededById", "supersedesId", "taskId", "ticketId", "updatedAt", "warningCount" FROM "run";
DROP TABLE "run";
ALTER TABLE "new_run" RENAME TO "run";
CREATE INDEX "run_status_expiresAt_idx" ON "run"("status", "expiresAt");
CREATE INDEX "run_status_escalateAt_idx" ON "run"("status", "escalateAt");
CREATE INDEX "run_status_createdAt_idx" ON "run"("status", "createdAt");
CREATE INDEX "run_desk_createdAt_idx" ON "run"("desk", "createdAt");
CREATE INDEX "run_desk_status_createdAt_idx" ON "run"("desk", "status", "createdAt");
CREATE INDEX "run_createdAt_idx" ON "run"("createdAt");
CREATE INDEX "run_createdDay_idx" ON "run"("createdDay");
CREATE INDEX "run_taskId_idx" ON "run"("taskId");
CREATE INDEX "run_status_editCount_expiresAt_idx" ON "run"("status", "editCount", "expiresAt");
CREATE INDEX "run_createdDay_status_expiresAt_editFraction_idx" ON "run"("createdDay", "status", "expiresAt", "editFraction");
CREATE INDEX "run_desk_status_assigneeId_idx" ON "run"("desk", "status", "assigneeId");
CREATE INDEX "run_desk_status_atStakeMinor_idx" ON "run"("desk", "status", "atStakeMinor");
CREATE INDEX "run_desk_ticketId_idx" ON "run"("desk", "ticketId");
CREATE INDEX "run_desk_accountId_idx" ON "run"("desk", "accountId");
CREATE UNIQUE INDEX "run_agentId_idempotencyKey_key" ON "run"("agentId", "idempotencyKey");
CREATE TABLE "new_run_step" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "stepId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "amountMinor" INTEGER,
    "amountCurrency" TEXT,
    "gated" BOOLEAN NOT NULL,
    "irreversible" BOOLEAN NOT NULL DEFAULT false,
    "crossAccount" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "run_step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_run_step" ("amountCurrency", "amountMinor", "gated", "id", "planVersion", "position", "runId", "stepId", "tool") SELECT "amountCurrency", "amountMinor", "gated", "id", "planVersion", "position", "runId", "stepId", "tool" FROM "run_step";
DROP TABLE "run_step";
ALTER TABLE "new_run_step" RENAME TO "run_step";
CREATE INDEX "run_step_tool_amountMinor_idx" ON "run_step"("tool", "amountMinor");
CREATE INDEX "run_step_gated_tool_amountMinor_idx" ON "run_step"("gated", "tool", "amountMinor");
CREATE UNIQUE INDEX "run_step_runId_stepId_key" ON "run_step"("runId", "stepId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "refusal_count_lastAt_idx" ON "refusal_count"("lastAt");

-- CreateIndex
CREATE INDEX "customer_account_name_idx" ON "customer_account"("name");

-- Every desk name already in use (and the default "freight") becomes a desk row.
INSERT OR IGNORE INTO "desk" ("id", "name")
SELECT "d", upper(substr("d", 1, 1)) || substr("d", 2) FROM (
    SELECT 'freight' AS "d"
    UNION SELECT "desk" FROM "customer_account"
    UNION SELECT "desk" FROM "user"
    UNION SELECT "desk" FROM "run"
);

-- Hand-written: the at-stake facts of runs stored before these columns (built-in irreversible tools;
-- the largest per-currency total of the money their steps move; steps that move money or are irreversible).
UPDATE "run_step" SET "irreversible" = true WHERE "tool" IN ('issue_refund', 'apply_credit', 'waive_fee');
UPDATE "run" SET "atStakeMinor" = COALESCE((SELECT MAX("t"."total") FROM (SELECT SUM("s"."amountMinor") AS "total" FROM "run_step" "s" WHERE "s"."runId" = "run"."id" AND "s"."amountMinor" IS NOT NULL GROUP BY "s"."amountCurrency") "t"), 0),
  "riskyStepCount" = (SELECT COUNT(*) FROM "run_step" "s" WHERE "s"."runId" = "run"."id" AND ("s"."irreversible" = true OR "s"."amountMinor" IS NOT NULL));
