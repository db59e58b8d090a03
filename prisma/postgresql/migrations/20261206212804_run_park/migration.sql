-- CreateTable
CREATE TABLE "run_park" (
    "userId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "until" TIMESTAMP(3),
    "parkedAt" TIMESTAMP(3) NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "taskRevision" INTEGER NOT NULL,
    "status" TEXT NOT NULL,

    CONSTRAINT "run_park_pkey" PRIMARY KEY ("userId","runId")
);

-- CreateIndex
CREATE INDEX "run_park_userId_until_idx" ON "run_park"("userId", "until");

-- CreateIndex
CREATE INDEX "run_park_runId_idx" ON "run_park"("runId");

-- AddForeignKey
ALTER TABLE "run_park" ADD CONSTRAINT "run_park_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
