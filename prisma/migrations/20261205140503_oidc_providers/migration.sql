-- CreateTable
CREATE TABLE "oidc_provider" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "desk" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretCiphertext" TEXT,
    "clientSecretHint" TEXT,
    "mapping" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdById" TEXT NOT NULL,
    "disabledAt" DATETIME,
    "disabledById" TEXT
);

-- CreateIndex
CREATE INDEX "oidc_provider_desk_createdAt_idx" ON "oidc_provider"("desk", "createdAt");
