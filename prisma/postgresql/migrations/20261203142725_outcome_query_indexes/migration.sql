-- DropIndex
DROP INDEX "plan_edit_createdAt_idx";

-- DropIndex
DROP INDEX "plan_edit_discardedAt_createdAt_idx";

-- DropIndex
DROP INDEX "run_outcome_edited_label_idx";

-- DropIndex
DROP INDEX "run_outcome_edited_overCompensation_executedDay_idx";

-- DropIndex
DROP INDEX "run_outcome_money_over_tool_idx";

-- CreateIndex
CREATE INDEX "plan_edit_createdAt_id_idx" ON "plan_edit"("createdAt", "id");

-- CreateIndex
CREATE INDEX "plan_edit_discardedAt_createdAt_id_idx" ON "plan_edit"("discardedAt", "createdAt", "id");

-- CreateIndex
CREATE INDEX "run_outcome_insights_idx" ON "run_outcome"("edited", "executedDay", "label", "reopened", "chargeback", "overCompensation", "beyondCap", "resolved", "customerReplied", "commitmentSent", "editorId");

-- CreateIndex
CREATE INDEX "run_outcome_money_over_idx" ON "run_outcome_money"("over", "executedDay", "tool", "currency", "writtenMinor", "proposedMinor");
