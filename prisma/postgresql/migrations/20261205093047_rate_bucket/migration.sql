-- CreateTable
CREATE TABLE "rate_bucket" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "refilledAt" TIMESTAMP(3) NOT NULL,
    "refusedMinute" TIMESTAMP(3),

    CONSTRAINT "rate_bucket_pkey" PRIMARY KEY ("key")
);
