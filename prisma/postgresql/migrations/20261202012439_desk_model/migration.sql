-- AlterTable
ALTER TABLE "agent" ADD COLUMN     "desk" TEXT NOT NULL DEFAULT 'freight';

-- CreateTable
CREATE TABLE "desk" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "desk_pkey" PRIMARY KEY ("id")
);

-- Every desk name already in use (and the default "freight") becomes a desk row.
INSERT INTO "desk" ("id", "name")
SELECT "d", upper(substr("d", 1, 1)) || substr("d", 2) FROM (
    SELECT 'freight' AS "d"
    UNION SELECT "desk" FROM "customer_account"
    UNION SELECT "desk" FROM "user"
    UNION SELECT "desk" FROM "run"
) AS "names"
ON CONFLICT ("id") DO NOTHING;
