-- CreateIndex
CREATE INDEX "staged_effect_status_stagedAt_idx" ON "staged_effect"("status", "stagedAt");
