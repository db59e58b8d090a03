/**
 * The selectors docs/testing.md promises a QA suite stay in the console: every documented test id
 * is still a `data-testid` of a component or page, and every documented accessible name (up to
 * its first placeholder, `<n>`) still appears in their source. A rename that would break an
 * outside suite fails here first, and the page must be updated with it.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (/\.(tsx|ts)$/.test(e.name) && !/\.test\.ts$/.test(e.name)) out.push(fs.readFileSync(p, "utf8"));
  }
  return out;
}

/** The rows of the Markdown table under heading `title` (cells trimmed), header and rule left out. */
export function tableUnder(markdown: string, title: string): string[][] {
  const start = markdown.indexOf(`### ${title}`);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of markdown.slice(start).split("\n").slice(1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) continue;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    if (cells.every((c) => /^-+$/.test(c))) continue;
    rows.push(cells);
  }
  return rows.slice(1);
}

/** The backticked values of a cell, each cut at its first placeholder (`Remove step <n>` → `Remove step`). */
export function namesIn(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1].split("<")[0].trim()).filter((n) => n.length > 0);
}

describe("docs/testing.md's selectors", () => {
  const doc = fs.readFileSync(path.join(root, "docs", "testing.md"), "utf8");
  const code = [...sources(path.join(root, "components")), ...sources(path.join(root, "app"))].join("\n");

  it("reads the tables it checks", () => {
    expect(tableUnder(doc, "Test ids").length).toBeGreaterThanOrEqual(10);
    expect(tableUnder(doc, "Roles and accessible names").length).toBeGreaterThanOrEqual(15);
    expect(namesIn("`Remove step <n>`, `Save edit`")).toEqual(["Remove step", "Save edit"]);
  });

  it("every documented test id is a data-testid of the console", () => {
    const missing = tableUnder(doc, "Test ids")
      .flatMap((row) => namesIn(row[0]))
      .filter((id) => !code.includes(`data-testid="${id}"`));
    expect(missing).toEqual([]);
  });

  it("every documented accessible name is in the console's source", () => {
    const missing = tableUnder(doc, "Roles and accessible names")
      .flatMap((row) => namesIn(row[2]))
      .filter((name) => !code.includes(name));
    expect(missing).toEqual([]);
  });

  it("the testing package's page objects use only documented test ids and names", () => {
    const pages = fs.readFileSync(path.join(root, "packages", "client", "src", "testing", "pages.ts"), "utf8");
    const ids = new Set(tableUnder(doc, "Test ids").flatMap((row) => namesIn(row[0])));
    const names = new Set(tableUnder(doc, "Roles and accessible names").flatMap((row) => namesIn(row[2])));
    const usedIds = [...pages.matchAll(/getByTestId\("([^"]+)"\)|data-testid="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
    const usedNames = [...pages.matchAll(/(?:name: |getByLabel\()(["`])([^"`]+)\1/g)].map((m) => m[2].split("${")[0].trim());
    expect(usedIds.length).toBeGreaterThan(3);
    expect(usedNames.length).toBeGreaterThan(10);
    expect(usedIds.filter((id) => !ids.has(id))).toEqual([]);
    expect(usedNames.filter((n) => !names.has(n))).toEqual([]);
  });
});
