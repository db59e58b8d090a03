-- AlterTable
ALTER TABLE "approval" ADD COLUMN "signature" JSONB;

-- CreateTable
CREATE TABLE "passkey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT,
    "publicKey" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "credentialID" TEXT NOT NULL,
    "counter" INTEGER NOT NULL,
    "deviceType" TEXT NOT NULL,
    "backedUp" BOOLEAN NOT NULL,
    "transports" TEXT,
    "createdAt" DATETIME,
    "aaguid" TEXT,
    CONSTRAINT "passkey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "passkey_requirement" (
    "role" TEXT NOT NULL PRIMARY KEY,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "signature_challenge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "steps" JSONB NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_gate_policy_rule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "policyVersion" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "tool" TEXT,
    "desk" TEXT,
    "accountId" TEXT,
    "accountTag" TEXT,
    "minAmountMinor" INTEGER,
    "maxAmountMinor" INTEGER,
    "currency" TEXT,
    "decision" TEXT NOT NULL,
    "authorMayApprove" BOOLEAN NOT NULL DEFAULT true,
    "expirySeconds" INTEGER,
    "escalateSeconds" INTEGER,
    "allowOutsideContract" TEXT,
    "requiredFields" JSONB,
    "dateHorizonDays" INTEGER,
    "maxRecordAgeMinutes" INTEGER,
    "requireSignature" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "gate_policy_rule_policyVersion_fkey" FOREIGN KEY ("policyVersion") REFERENCES "gate_policy_version" ("version") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_gate_policy_rule" ("accountId", "accountTag", "allowOutsideContract", "authorMayApprove", "currency", "dateHorizonDays", "decision", "desk", "escalateSeconds", "expirySeconds", "id", "maxAmountMinor", "maxRecordAgeMinutes", "minAmountMinor", "note", "policyVersion", "position", "requiredFields", "tool") SELECT "accountId", "accountTag", "allowOutsideContract", "authorMayApprove", "currency", "dateHorizonDays", "decision", "desk", "escalateSeconds", "expirySeconds", "id", "maxAmountMinor", "maxRecordAgeMinutes", "minAmountMinor", "note", "policyVersion", "position", "requiredFields", "tool" FROM "gate_policy_rule";
DROP TABLE "gate_policy_rule";
ALTER TABLE "new_gate_policy_rule" RENAME TO "gate_policy_rule";
CREATE UNIQUE INDEX "gate_policy_rule_policyVersion_position_key" ON "gate_policy_rule"("policyVersion", "position");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "passkey_userId_idx" ON "passkey"("userId");

-- CreateIndex
CREATE INDEX "passkey_credentialID_idx" ON "passkey"("credentialID");

-- CreateIndex
CREATE INDEX "signature_challenge_runId_userId_idx" ON "signature_challenge"("runId", "userId");
