// The hash of a checkout's sources: what `npm start` compares with the stamp it wrote after its
// last build (rebuild when they differ), and what marks the demo desk's snapshot as made by
// these sources (lib/server/scenarios/demo-snapshot.ts). Plain Node, no dependencies.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Where `npm start` writes the hash of the sources its last build was made from, relative to the checkout. */
export const SOURCE_HASH_STAMP = path.join(".next", "plandesk-source-hash");

/** Files a build itself writes: left out of the hash, so a build does not change it. */
const BUILD_OUTPUTS = new Set(["next-env.d.ts", "tsconfig.tsbuildinfo"]);
/** Folders that are not sources (dependencies, build output, data, test output, locks). */
const NOT_SOURCES = new Set(["node_modules", ".next", "data", ".git", "test-results", "playwright-report", "e2e", ".build-lock", ".servers"]);

/**
 * Lowercase hex SHA-256 over the path and content of every .ts, .tsx, .mjs, .css, .json and
 * .prisma file under `root` (sorted walk), leaving out NOT_SOURCES folders and BUILD_OUTPUTS.
 */
export function sourceHash(root) {
  const h = createHash("sha256");
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (NOT_SOURCES.has(e.name) || BUILD_OUTPUTS.has(e.name)) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(tsx?|mjs|css|json|prisma)$/.test(e.name)) h.update(p).update(fs.readFileSync(p));
    }
  };
  walk(root);
  return h.digest("hex");
}

/** The hash of the sources the checkout's current build was made from (the stamp), or null when there is no stamped build. */
export function builtSourceHash(root) {
  try {
    const s = fs.readFileSync(path.join(root, SOURCE_HASH_STAMP), "utf8").trim();
    return /^[0-9a-f]{64}$/.test(s) ? s : null;
  } catch {
    return null;
  }
}
