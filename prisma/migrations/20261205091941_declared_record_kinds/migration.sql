-- CreateTable
CREATE TABLE "record_kind" (
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "schema" JSONB NOT NULL,
    "roles" JSONB NOT NULL,
    "note" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("desk", "kind")
);

-- CreateTable
CREATE TABLE "record_kind_version" (
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "schema" JSONB NOT NULL,
    "roles" JSONB NOT NULL,
    "note" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("desk", "kind", "version")
);

-- CreateTable
CREATE TABLE "desk_record" (
    "desk" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
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
    "sourceUpdatedAt" DATETIME,
    "syncedAt" DATETIME,
    "deletedAt" DATETIME,

    PRIMARY KEY ("desk", "kind", "id")
);

-- CreateIndex
CREATE INDEX "desk_record_desk_ownerAccountId_idx" ON "desk_record"("desk", "ownerAccountId");
