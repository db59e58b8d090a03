-- AlterTable
ALTER TABLE "plan_version" ADD COLUMN "reads" JSONB;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN "requiredFields" JSONB;
