#!/usr/bin/env node
// The stamp of the generated Prisma clients (lib/generated/.schema-hash): a hash of what they are
// made from — the schema, its PostgreSQL derivation, the installed Prisma. `npm run db:generate`
// writes it last (run as a script); `npm start` generates again only when it differs
// (scripts/start.mjs), since regenerating rewrites lib/generated, which the build's source hash
// covers. Plain Node (no dependencies): it runs in postinstall.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/** Where the stamp is kept (not a source extension the build's hash reads). */
export const CLIENT_STAMP = path.join(root, "lib", "generated", ".schema-hash");

/** The hex SHA-256 of the clients' inputs (a missing file counts as empty). */
export function clientInputsHash() {
  const h = createHash("sha256");
  for (const f of ["prisma/schema.prisma", "scripts/prisma-schemas.mjs", "node_modules/prisma/package.json", "node_modules/@prisma/client/package.json"]) {
    const p = path.join(root, f);
    h.update(f).update(fs.existsSync(p) ? fs.readFileSync(p) : "");
  }
  return h.digest("hex");
}

/** True when both generated clients are there and were made from the current inputs. */
export function clientsUpToDate() {
  const present = ["prisma", "prisma-pg"].every((d) => fs.existsSync(path.join(root, "lib", "generated", d)));
  return present && fs.existsSync(CLIENT_STAMP) && fs.readFileSync(CLIENT_STAMP, "utf8") === clientInputsHash();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.mkdirSync(path.dirname(CLIENT_STAMP), { recursive: true });
  fs.writeFileSync(CLIENT_STAMP, clientInputsHash());
}
