-- AlterTable
ALTER TABLE "task" ADD COLUMN "contract" JSONB;
ALTER TABLE "task" ADD COLUMN "textParts" JSONB;

-- AlterTable
ALTER TABLE "task_revision" ADD COLUMN "contract" JSONB;
ALTER TABLE "task_revision" ADD COLUMN "textParts" JSONB;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN "allowOutsideContract" TEXT;

-- CreateTable
CREATE TABLE "desk_intent" (
    "desk" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "permittedTools" JSONB NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("desk", "name")
);
