-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN "dateHorizonDays" INTEGER;
