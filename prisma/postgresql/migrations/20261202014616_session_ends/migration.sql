-- CreateTable
CREATE TABLE "session_end" (
    "seq" SERIAL NOT NULL,
    "userId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_end_pkey" PRIMARY KEY ("seq")
);
