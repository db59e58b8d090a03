/**
 * The source hash behind `npm start`'s rebuild decision and the demo snapshot's mark: it changes
 * when a source changes, not when a build writes its own files, and the stamp of a build is read
 * back as written.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SOURCE_HASH_STAMP, builtSourceHash, sourceHash } from "./source-hash.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function checkout(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-source-hash-"));
  dirs.push(d);
  fs.mkdirSync(path.join(d, "lib"));
  fs.writeFileSync(path.join(d, "lib", "a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(d, "package.json"), "{}\n");
  return d;
}

describe("source hash", () => {
  it("changes with a source file, not with what a build or the database writes", () => {
    const d = checkout();
    const before = sourceHash(d);
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    fs.mkdirSync(path.join(d, ".next"));
    fs.writeFileSync(path.join(d, ".next", "BUILD_ID"), "x");
    fs.writeFileSync(path.join(d, "next-env.d.ts"), "// written by the build\n");
    fs.mkdirSync(path.join(d, "data"));
    fs.writeFileSync(path.join(d, "data", "plandesk.json"), "{}");
    expect(sourceHash(d)).toBe(before);
    fs.writeFileSync(path.join(d, "lib", "a.ts"), "export const a = 2;\n");
    expect(sourceHash(d)).not.toBe(before);
  });

  it("reads the stamp a build wrote, and nothing when there is none or it is not a hash", () => {
    const d = checkout();
    expect(builtSourceHash(d)).toBeNull();
    fs.mkdirSync(path.join(d, ".next"));
    fs.writeFileSync(path.join(d, SOURCE_HASH_STAMP), "not a hash");
    expect(builtSourceHash(d)).toBeNull();
    fs.writeFileSync(path.join(d, SOURCE_HASH_STAMP), sourceHash(d));
    expect(builtSourceHash(d)).toBe(sourceHash(d));
  });
});
