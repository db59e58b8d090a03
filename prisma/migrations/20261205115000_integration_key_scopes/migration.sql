-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_integration_key" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" DATETIME,
    "lastUsedAt" DATETIME,
    "desk" TEXT,
    "scopes" TEXT NOT NULL DEFAULT 'tasks records'
);
INSERT INTO "new_integration_key" ("createdAt", "desk", "hash", "id", "lastUsedAt", "name", "prefix", "revokedAt") SELECT "createdAt", "desk", "hash", "id", "lastUsedAt", "name", "prefix", "revokedAt" FROM "integration_key";
DROP TABLE "integration_key";
ALTER TABLE "new_integration_key" RENAME TO "integration_key";
CREATE UNIQUE INDEX "integration_key_hash_key" ON "integration_key"("hash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
