-- AlterTable
ALTER TABLE "run" ADD COLUMN     "atStakeMinor" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "riskyStepCount" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "run_step" ADD COLUMN     "crossAccount" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "irreversible" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "customer_account_name_idx" ON "customer_account"("name");

-- CreateIndex
CREATE INDEX "run_desk_status_atStakeMinor_idx" ON "run"("desk", "status", "atStakeMinor");

-- CreateIndex
CREATE INDEX "run_desk_ticketId_idx" ON "run"("desk", "ticketId");

-- CreateIndex
CREATE INDEX "run_desk_accountId_idx" ON "run"("desk", "accountId");

-- Hand-written: the at-stake facts of runs stored before these columns (built-in irreversible tools;
-- the largest per-currency total of the money their steps move; steps that move money or are irreversible).
UPDATE "run_step" SET "irreversible" = true WHERE "tool" IN ('issue_refund', 'apply_credit', 'waive_fee');
UPDATE "run" SET "atStakeMinor" = COALESCE((SELECT MAX("t"."total") FROM (SELECT SUM("s"."amountMinor") AS "total" FROM "run_step" "s" WHERE "s"."runId" = "run"."id" AND "s"."amountMinor" IS NOT NULL GROUP BY "s"."amountCurrency") "t"), 0),
  "riskyStepCount" = (SELECT COUNT(*) FROM "run_step" "s" WHERE "s"."runId" = "run"."id" AND ("s"."irreversible" = true OR "s"."amountMinor" IS NOT NULL));
