-- DropIndex
DROP INDEX "holiday_destination_date_idx";

-- AlterTable (hand-written: the shared calendar's rows become every desk's before desk is NOT NULL and a key)
ALTER TABLE "holiday" DROP CONSTRAINT "holiday_pkey";

-- A holiday of the shared calendar (desk null, written before the records door) was every desk's: each desk
-- gets its own copy under the same id (ids were global, so no desk already holds it), so every desk's validator
-- still sees it, and each desk's system of record may now replace or delete its copy.
INSERT INTO "holiday" ("id", "destination", "date", "name", "desk", "sourceVersion", "sourceUpdatedAt", "syncedAt", "deletedAt")
SELECT h."id", h."destination", h."date", h."name", d."id", h."sourceVersion", h."sourceUpdatedAt", h."syncedAt", h."deletedAt" FROM "holiday" h CROSS JOIN "desk" d WHERE h."desk" IS NULL;
DELETE FROM "holiday" WHERE "desk" IS NULL;

ALTER TABLE "holiday" ALTER COLUMN "desk" SET NOT NULL,
ADD CONSTRAINT "holiday_pkey" PRIMARY KEY ("desk", "id");

-- CreateIndex
CREATE INDEX "holiday_desk_destination_date_idx" ON "holiday"("desk", "destination", "date");
