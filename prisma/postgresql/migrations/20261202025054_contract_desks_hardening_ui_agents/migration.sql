-- AlterTable
ALTER TABLE "task" ADD COLUMN     "contract" JSON,
ADD COLUMN     "textParts" JSON;

-- AlterTable
ALTER TABLE "task_revision" ADD COLUMN     "contract" JSON,
ADD COLUMN     "textParts" JSON;

-- AlterTable
ALTER TABLE "agent" ADD COLUMN     "desk" TEXT NOT NULL DEFAULT 'freight',
ADD COLUMN     "executesTools" JSON;

-- AlterTable
ALTER TABLE "run" ADD COLUMN     "atStakeMinor" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "riskyStepCount" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "plan_version" ADD COLUMN     "reads" JSON;

-- AlterTable
ALTER TABLE "run_step" ADD COLUMN     "crossAccount" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "irreversible" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN     "allowOutsideContract" TEXT,
ADD COLUMN     "requiredFields" JSON;

-- CreateTable
CREATE TABLE "desk" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "desk_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "desk_intent" (
    "desk" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "permittedTools" JSON NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "desk_intent_pkey" PRIMARY KEY ("desk","name")
);

-- CreateTable
CREATE TABLE "refusal_count" (
    "minute" TIMESTAMP(3) NOT NULL,
    "address" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "missing" TEXT NOT NULL,
    "origin" TEXT,
    "count" INTEGER NOT NULL DEFAULT 1,
    "lastAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "refusal_count_pkey" PRIMARY KEY ("minute","address","route","code")
);

-- CreateTable
CREATE TABLE "session_end" (
    "seq" SERIAL NOT NULL,
    "userId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_end_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "refusal_count_lastAt_idx" ON "refusal_count"("lastAt");

-- CreateIndex
CREATE INDEX "customer_account_name_idx" ON "customer_account"("name");

-- CreateIndex
CREATE INDEX "run_desk_status_atStakeMinor_idx" ON "run"("desk", "status", "atStakeMinor");

-- CreateIndex
CREATE INDEX "run_desk_ticketId_idx" ON "run"("desk", "ticketId");

-- CreateIndex
CREATE INDEX "run_desk_accountId_idx" ON "run"("desk", "accountId");

-- Every desk name already in use (and the default "freight") becomes a desk row.
INSERT INTO "desk" ("id", "name")
SELECT "d", upper(substr("d", 1, 1)) || substr("d", 2) FROM (
    SELECT 'freight' AS "d"
    UNION SELECT "desk" FROM "customer_account"
    UNION SELECT "desk" FROM "user"
    UNION SELECT "desk" FROM "run"
) AS "names"
ON CONFLICT ("id") DO NOTHING;

-- Hand-written: the at-stake facts of runs stored before these columns (built-in irreversible tools;
-- the largest per-currency total of the money their steps move; steps that move money or are irreversible).
UPDATE "run_step" SET "irreversible" = true WHERE "tool" IN ('issue_refund', 'apply_credit', 'waive_fee');
UPDATE "run" SET "atStakeMinor" = COALESCE((SELECT MAX("t"."total") FROM (SELECT SUM("s"."amountMinor") AS "total" FROM "run_step" "s" WHERE "s"."runId" = "run"."id" AND "s"."amountMinor" IS NOT NULL GROUP BY "s"."amountCurrency") "t"), 0),
  "riskyStepCount" = (SELECT COUNT(*) FROM "run_step" "s" WHERE "s"."runId" = "run"."id" AND ("s"."irreversible" = true OR "s"."amountMinor" IS NOT NULL));
