-- CreateTable
CREATE TABLE "run_park" (
    "userId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "until" DATETIME,
    "parkedAt" DATETIME NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "taskRevision" INTEGER NOT NULL,
    "status" TEXT NOT NULL,

    PRIMARY KEY ("userId", "runId"),
    CONSTRAINT "run_park_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "run_park_userId_until_idx" ON "run_park"("userId", "until");

-- CreateIndex
CREATE INDEX "run_park_runId_idx" ON "run_park"("runId");
