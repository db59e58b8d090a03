-- AlterTable
ALTER TABLE "plan_edit" ADD COLUMN "discardedAt" DATETIME;

-- CreateTable
CREATE TABLE "plan_edit_pattern" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "editId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "plan_edit_pattern_editId_fkey" FOREIGN KEY ("editId") REFERENCES "plan_edit" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "desk_rule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "desk" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "severity" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "source" JSONB,
    "sourceHash" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "desk_rule_version" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ruleId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "severity" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "note" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "desk_rule_version_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "desk_rule" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "plan_edit_pattern_keyHash_desk_createdAt_idx" ON "plan_edit_pattern"("keyHash", "desk", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "plan_edit_pattern_editId_keyHash_key" ON "plan_edit_pattern"("editId", "keyHash");

-- CreateIndex
CREATE INDEX "desk_rule_desk_enabled_idx" ON "desk_rule"("desk", "enabled");

-- CreateIndex
CREATE INDEX "desk_rule_desk_createdAt_idx" ON "desk_rule"("desk", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "desk_rule_version_ruleId_version_key" ON "desk_rule_version"("ruleId", "version");

-- CreateIndex
CREATE INDEX "plan_edit_discardedAt_createdAt_idx" ON "plan_edit"("discardedAt", "createdAt");

-- CreateIndex
CREATE INDEX "plan_edit_discardedAt_sizeFraction_idx" ON "plan_edit"("discardedAt", "sizeFraction");
