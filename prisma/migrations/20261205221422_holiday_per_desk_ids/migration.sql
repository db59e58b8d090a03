-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_holiday" (
    "id" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "date" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "sourceVersion" BIGINT,
    "sourceUpdatedAt" DATETIME,
    "syncedAt" DATETIME,
    "deletedAt" DATETIME,

    PRIMARY KEY ("desk", "id")
);
INSERT INTO "new_holiday" ("date", "deletedAt", "desk", "destination", "id", "name", "sourceUpdatedAt", "sourceVersion", "syncedAt") SELECT "date", "deletedAt", "desk", "destination", "id", "name", "sourceUpdatedAt", "sourceVersion", "syncedAt" FROM "holiday" WHERE "desk" IS NOT NULL;
-- A holiday of the shared calendar (desk null, written before the records door) was every desk's: each desk
-- gets its own copy under the same id (ids were global, so no desk already holds it), so every desk's validator
-- still sees it, and each desk's system of record may now replace or delete its copy.
INSERT INTO "new_holiday" ("date", "deletedAt", "desk", "destination", "id", "name", "sourceUpdatedAt", "sourceVersion", "syncedAt") SELECT h."date", h."deletedAt", d."id", h."destination", h."id", h."name", h."sourceUpdatedAt", h."sourceVersion", h."syncedAt" FROM "holiday" h CROSS JOIN "desk" d WHERE h."desk" IS NULL;
DROP TABLE "holiday";
ALTER TABLE "new_holiday" RENAME TO "holiday";
CREATE INDEX "holiday_desk_destination_date_idx" ON "holiday"("desk", "destination", "date");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
