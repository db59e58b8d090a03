-- CreateTable
CREATE TABLE "record_kind" (
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "schema" JSON NOT NULL,
    "roles" JSON NOT NULL,
    "note" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "record_kind_pkey" PRIMARY KEY ("desk","kind")
);

-- CreateTable
CREATE TABLE "record_kind_version" (
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "schema" JSON NOT NULL,
    "roles" JSON NOT NULL,
    "note" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "record_kind_version_pkey" PRIMARY KEY ("desk","kind","version")
);

-- CreateTable
CREATE TABLE "desk_record" (
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "fields" JSON NOT NULL,
    "kindVersion" INTEGER NOT NULL,
    "ownerId" TEXT,
    "ownerAccountId" TEXT,
    "availableMinor" BIGINT,
    "currency" TEXT,
    "status" TEXT,
    "closed" BOOLEAN,
    "windowStart" TEXT,
    "windowEnd" TEXT,
    "title" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "sourceVersion" BIGINT,
    "sourceUpdatedAt" TIMESTAMP(3),
    "syncedAt" TIMESTAMP(3),
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "desk_record_pkey" PRIMARY KEY ("desk","kind","id")
);

-- CreateIndex
CREATE INDEX "desk_record_desk_ownerAccountId_idx" ON "desk_record"("desk", "ownerAccountId");
