-- CreateTable
CREATE TABLE "desk" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_agent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "allowedTools" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_agent" ("allowedTools", "createdAt", "id", "name") SELECT "allowedTools", "createdAt", "id", "name" FROM "agent";
DROP TABLE "agent";
ALTER TABLE "new_agent" RENAME TO "agent";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Every desk name already in use (and the default "freight") becomes a desk row.
INSERT OR IGNORE INTO "desk" ("id", "name")
SELECT "d", upper(substr("d", 1, 1)) || substr("d", 2) FROM (
    SELECT 'freight' AS "d"
    UNION SELECT "desk" FROM "customer_account"
    UNION SELECT "desk" FROM "user"
    UNION SELECT "desk" FROM "run"
);
