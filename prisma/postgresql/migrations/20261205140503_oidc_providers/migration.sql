-- CreateTable
CREATE TABLE "oidc_provider" (
    "id" TEXT NOT NULL,
    "desk" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretCiphertext" TEXT,
    "clientSecretHint" TEXT,
    "mapping" JSON NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdById" TEXT NOT NULL,
    "disabledAt" TIMESTAMP(3),
    "disabledById" TEXT,

    CONSTRAINT "oidc_provider_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oidc_provider_desk_createdAt_idx" ON "oidc_provider"("desk", "createdAt");
