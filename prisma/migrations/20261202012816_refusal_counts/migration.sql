-- CreateTable
CREATE TABLE "refusal_count" (
    "minute" DATETIME NOT NULL,
    "address" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "missing" TEXT NOT NULL,
    "origin" TEXT,
    "count" INTEGER NOT NULL DEFAULT 1,
    "lastAt" DATETIME NOT NULL,

    PRIMARY KEY ("minute", "address", "route", "code")
);

-- CreateIndex
CREATE INDEX "refusal_count_lastAt_idx" ON "refusal_count"("lastAt");
