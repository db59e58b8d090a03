-- CreateTable
CREATE TABLE "mcp_upstream" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "desk" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "transport" TEXT NOT NULL,
    "command" TEXT,
    "args" JSONB,
    "url" TEXT,
    "credentialKind" TEXT,
    "credentialHeader" TEXT,
    "credentialCiphertext" TEXT,
    "credentialHint" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdById" TEXT NOT NULL,
    "disabledAt" DATETIME,
    "disabledById" TEXT
);

-- CreateIndex
CREATE INDEX "mcp_upstream_desk_createdAt_idx" ON "mcp_upstream"("desk", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "mcp_upstream_desk_name_key" ON "mcp_upstream"("desk", "name");
