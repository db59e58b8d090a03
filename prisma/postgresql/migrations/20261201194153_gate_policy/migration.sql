-- DropIndex
DROP INDEX "approval_runId_planVersion_stepId_key";

-- AlterTable
ALTER TABLE "customer_account" ADD COLUMN     "tags" JSON;

-- AlterTable
ALTER TABLE "run" ADD COLUMN     "policyVersion" INTEGER;

-- AlterTable
ALTER TABLE "approval" ADD COLUMN     "approvalsRequired" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "approverSlot" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "policyRuleId" TEXT,
ADD COLUMN     "policyVersion" INTEGER;

-- CreateTable
CREATE TABLE "gate_policy_version" (
    "version" INTEGER NOT NULL,
    "createdById" TEXT,
    "note" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gate_policy_version_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "gate_policy_rule" (
    "id" TEXT NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT,
    "desk" TEXT,
    "accountId" TEXT,
    "accountTag" TEXT,
    "minAmountMinor" INTEGER,
    "maxAmountMinor" INTEGER,
    "currency" TEXT,
    "decision" TEXT NOT NULL,
    "authorMayApprove" BOOLEAN NOT NULL DEFAULT true,
    "expirySeconds" INTEGER,
    "escalateSeconds" INTEGER,
    "note" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "gate_policy_rule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "gate_policy_rule_policyVersion_position_key" ON "gate_policy_rule"("policyVersion", "position");

-- CreateIndex
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverSlot_key" ON "approval"("runId", "planVersion", "stepId", "approverSlot");

-- CreateIndex
CREATE UNIQUE INDEX "approval_runId_planVersion_stepId_approverId_key" ON "approval"("runId", "planVersion", "stepId", "approverId");

-- AddForeignKey
ALTER TABLE "gate_policy_rule" ADD CONSTRAINT "gate_policy_rule_policyVersion_fkey" FOREIGN KEY ("policyVersion") REFERENCES "gate_policy_version"("version") ON DELETE RESTRICT ON UPDATE CASCADE;
