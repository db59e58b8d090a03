-- AlterTable
ALTER TABLE "task" ADD COLUMN     "contract" JSON,
ADD COLUMN     "textParts" JSON;

-- AlterTable
ALTER TABLE "task_revision" ADD COLUMN     "contract" JSON,
ADD COLUMN     "textParts" JSON;

-- AlterTable
ALTER TABLE "gate_policy_rule" ADD COLUMN     "allowOutsideContract" TEXT;

-- CreateTable
CREATE TABLE "desk_intent" (
    "desk" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "permittedTools" JSON NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "desk_intent_pkey" PRIMARY KEY ("desk","name")
);
