-- AlterTable
ALTER TABLE "run" ADD COLUMN     "catalogVersion" INTEGER;

-- CreateTable
CREATE TABLE "tool_catalog_version" (
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "sourceRef" TEXT NOT NULL,
    "importedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_catalog_version_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "imported_tool" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "catalogVersion" INTEGER NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "inputSchema" JSON NOT NULL,
    "annotations" JSON NOT NULL,
    "effect" TEXT NOT NULL,
    "gate" TEXT NOT NULL,
    "source" TEXT NOT NULL,

    CONSTRAINT "imported_tool_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "imported_tool_catalogVersion_idx" ON "imported_tool"("catalogVersion");

-- CreateIndex
CREATE UNIQUE INDEX "imported_tool_name_catalogVersion_key" ON "imported_tool"("name", "catalogVersion");

-- AddForeignKey
ALTER TABLE "imported_tool" ADD CONSTRAINT "imported_tool_catalogVersion_fkey" FOREIGN KEY ("catalogVersion") REFERENCES "tool_catalog_version"("version") ON DELETE RESTRICT ON UPDATE CASCADE;
