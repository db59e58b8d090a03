-- AlterTable
ALTER TABLE "plan_version" ADD COLUMN     "reads" JSON;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN     "requiredFields" JSON;
