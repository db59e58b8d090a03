-- CreateTable
CREATE TABLE "rate_bucket" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "tokens" REAL NOT NULL,
    "refilledAt" DATETIME NOT NULL,
    "refusedMinute" DATETIME
);
