-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_user" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "role" TEXT NOT NULL DEFAULT 'operator',
    "desk" TEXT NOT NULL DEFAULT 'freight',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_user" ("createdAt", "disabled", "email", "emailVerified", "id", "image", "name", "role", "updatedAt") SELECT "createdAt", "disabled", "email", "emailVerified", "id", "image", "name", "role", "updatedAt" FROM "user";
DROP TABLE "user";
ALTER TABLE "new_user" RENAME TO "user";
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");
CREATE TABLE "new_customer_account" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "desk" TEXT NOT NULL DEFAULT 'freight'
);
INSERT INTO "new_customer_account" ("id", "name") SELECT "id", "name" FROM "customer_account";
DROP TABLE "customer_account";
ALTER TABLE "new_customer_account" RENAME TO "customer_account";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
