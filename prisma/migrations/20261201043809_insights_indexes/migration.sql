-- CreateIndex
CREATE INDEX "run_status_editCount_expiresAt_idx" ON "run"("status", "editCount", "expiresAt");

-- CreateIndex
CREATE INDEX "run_createdDay_status_expiresAt_editFraction_idx" ON "run"("createdDay", "status", "expiresAt", "editFraction");

-- CreateIndex
CREATE INDEX "plan_edit_sizeFraction_idx" ON "plan_edit"("sizeFraction");
