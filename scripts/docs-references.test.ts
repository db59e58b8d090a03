/**
 * The design lives in the repository (docs/style.md §9, §10): every comment in the source, and
 * every backticked path in the project's Markdown, must point at something this repository
 * holds. A comment fails this test when it
 * - names a repository path (`lib/…`, `app/…`, `docs/…`, …) that does not exist;
 * - cites a design, API or style page by a name the repository does not hold (the top-level
 *   pages of the project's early days, or a shared folder above the repository);
 * - cites a section of docs/design.md or docs/style.md that has no heading or item;
 * - cites a heading of the README or another Markdown page (docs/, bench/README.md, the client
 *   package's README) that the page does not hold — the project's Markdown is held to this too;
 * - gives an issue number as its reason instead of the rule.
 * Comments are read with TypeScript's own parser (leading and trailing comment ranges of every
 * token), so strings and regular expressions are never mistaken for comments; the data model's
 * comments (prisma/schema.prisma, `//` and `///`) are held to the same rule.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const SOURCE_DIRS = ["lib", "app", "components", "e2e", "scripts", "testing", "examples", "packages", "prisma"];
const SOURCE_EXT = /\.(ts|tsx|mts|mjs|cjs|js)$/;
const SKIP_DIRS = new Set(["node_modules", "generated", ".next", "dist", "data", "test-results", "migrations"]);
/** Folders at the repository root a comment may name a path under. */
const ROOTS = ["lib", "app", "components", "e2e", "scripts", "testing", "examples", "packages", "prisma", "docs", "bench", "public", ".ci"];

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(path.join(dir, e.name), out);
    } else if (SOURCE_EXT.test(e.name)) out.push(path.join(dir, e.name));
  }
}

/** Every source file of the repository (repo-relative), plus the root config files. */
function sourceFiles(): string[] {
  const out: string[] = [];
  for (const d of SOURCE_DIRS) walk(path.join(root, d), out);
  for (const f of fs.readdirSync(root)) if (SOURCE_EXT.test(f)) out.push(path.join(root, f));
  return out.map((f) => path.relative(root, f)).sort();
}

/** The text of every comment in `file`, with its 1-based line. */
export function commentsOf(file: string, text: string): { line: number; text: string }[] {
  const kind = file.endsWith("x") ? ts.ScriptKind.TSX : file.endsWith(".ts") || file.endsWith(".mts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Set<number>();
  const out: { line: number; text: string }[] = [];
  const take = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push({ line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  // a file's first comment (a shebang, a header) and its last ones sit outside every token
  take(ts.getLeadingCommentRanges(text, 0));
  take(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return out;
}

const PATH = new RegExp(`(?<![\\w./@-])((?:${ROOTS.map((r) => r.replace(".", "\\.")).join("|")})/[\\w.\\[\\]()@/<>*{}-]*)`, "g");

/** True when `p` (repo-relative, as written) names an existing file or folder. */
function exists(p: string): boolean {
  const clean = p.replace(/[.,:;)]+$/, "").replace(/\/$/, "");
  if (clean === "" || /[<*{]/.test(clean)) return true;
  const full = path.join(root, clean);
  if (fs.existsSync(full)) return true;
  return [".ts", ".tsx", ".mjs", ".md", ".json"].some((ext) => fs.existsSync(full + ext));
}

/** Section markers a doc offers: "§N" / "§N.M" of its headings and numbered items, and its heading names. */
function sectionsOf(doc: string): { numbers: Set<string>; names: string[] } {
  const text = fs.readFileSync(path.join(root, doc), "utf8");
  const numbers = new Set<string>();
  for (const m of text.matchAll(/§(\d+(?:\.\d+)?)/g)) numbers.add(m[1]);
  for (const m of text.matchAll(/^(\d+)\. /gm)) numbers.add(m[1]);
  const names = [...text.matchAll(/^#+ (.+)$/gm)].map((m) => m[1].replace(/^§[\d.]+ /, "").toLowerCase());
  return { numbers, names };
}

/** Every problem with the references in one comment (empty when it is fine). */
export function referenceProblems(comment: string, docs: Record<string, ReturnType<typeof sectionsOf>>): string[] {
  const problems: string[] = [];
  for (const m of comment.matchAll(PATH)) if (!exists(m[1])) problems.push(`names ${m[1].replace(/[.,:;)]+$/, "")}, which is not in the repository`);
  for (const m of comment.matchAll(/(?<![\w/.-])(DESIGN|API|STYLE)\.md\b/g)) problems.push(`cites ${m[0]}, which is not in the repository (cite docs/${m[1].toLowerCase()}.md)`);
  if (/\.\.\/shared\b/.test(comment)) problems.push("points at ../shared, outside the repository");
  for (const m of comment.matchAll(/\b[Ii]ssues? #\d+/g)) problems.push(`gives "${m[0]}" as a reason: state the rule`);
  for (const m of comment.matchAll(/docs\/(design|style)\.md(?:#[\w-]+)?\s*§\s?(\d+(?:\.\d+)?)/g)) {
    const doc = docs[`docs/${m[1]}.md`];
    if (doc && !doc.numbers.has(m[2])) problems.push(`cites docs/${m[1]}.md §${m[2]}, which has no such section`);
  }
  for (const m of comment.matchAll(/docs\/design\.md\s+["“']([^"”']+)["”']/g)) {
    const name = m[1].toLowerCase();
    if (!docs["docs/design.md"].names.some((n) => n.startsWith(name) || name.startsWith(n))) problems.push(`cites docs/design.md "${m[1]}", which has no such heading`);
  }
  return problems;
}

/**
 * The sections a page offers by name, lower-cased, without backticks or a leading "§N": its
 * headings, the bold lead of a paragraph or item (`**Date horizon.**`) and an item's lead before
 * its colon (`- Database changes: …`).
 */
function headingsOf(page: string): string[] {
  const text = fs.readFileSync(path.join(root, page), "utf8");
  const names = [
    ...[...text.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]),
    ...[...text.matchAll(/^(?:[-*] |\d+\. )?\*\*([^*]+)\*\*/gm)].map((m) => m[1].replace(/[.:]$/, "")),
    ...[...text.matchAll(/^[-*] ([^:*`\n]{3,60}):/gm)].map((m) => m[1]),
  ];
  return names.map((n) => n.replace(/`/g, "").replace(/^§[\d.]+ /, "").trim().toLowerCase());
}

/** A cited page and section: `README "Set up"`, `docs/operations.md "Traces"`, or the page, a comma and the name. */
const PAGE_CITATION = /(?<![\w/.-])(package's README|README(?:\.md)?|CONTRIBUTING\.md|(?:docs|bench|packages\/client)\/[\w-]+\.md)(?:#[\w-]+)?,?\s+["“]([^"”]+)["”]/g;

/**
 * Every problem with the page headings `text` cites (a comment or a Markdown page; empty when
 * fine): a cited page must exist and hold a heading the cited name begins, or that begins it.
 * docs/design.md is left to `referenceProblems`; "the package's README" is packages/client/README.md.
 */
export function headingProblems(text: string): string[] {
  const flat = text.replace(/\n\s*(?:\*|\/\/)?\s*/g, " ");
  const problems: string[] = [];
  for (const m of flat.matchAll(PAGE_CITATION)) {
    const page = m[1] === "package's README" ? "packages/client/README.md" : m[1] === "README" ? "README.md" : m[1];
    if (page === "docs/design.md") continue;
    if (!fs.existsSync(path.join(root, page))) {
      problems.push(`cites ${page}, which is not in the repository`);
      continue;
    }
    const name = m[2].replace(/`/g, "").trim().toLowerCase();
    if (!headingsOf(page).some((h) => h.startsWith(name) || name.startsWith(h))) problems.push(`cites ${page} "${m[2]}", which has no such heading`);
  }
  return problems;
}

describe("the design lives in the repository", () => {
  const docs = { "docs/design.md": sectionsOf("docs/design.md"), "docs/style.md": sectionsOf("docs/style.md") };

  it("finds the problems it is meant to find", () => {
    expect(referenceProblems("// see DESIGN.md §9", docs)).toHaveLength(1);
    expect(referenceProblems("/* the old file lib/server/nowhere-at-all.ts */", docs)).toHaveLength(1);
    expect(referenceProblems("// (issue #12) one live plan", docs)).toHaveLength(1);
    expect(referenceProblems("// docs/design.md §99", docs)).toHaveLength(1);
    expect(referenceProblems('// docs/design.md "No such heading here"', docs)).toHaveLength(1);
    expect(referenceProblems("// ../shared/seeds/001.txt", docs)).toEqual(["points at ../shared, outside the repository"]);
    expect(referenceProblems("// claims are exactly-once (docs/design.md §9); see lib/errors/domain-error.ts", docs)).toEqual([]);
    expect(referenceProblems('// docs/design.md "Desks", docs/style.md §12, lib/tools/<tool>/', docs)).toEqual([]);
  });

  it("reads comments, not strings", () => {
    const found = commentsOf("x.ts", 'const a = "// DESIGN.md"; // real comment\n/* block */ const re = /\\/\\/x/;\n');
    expect(found.map((c) => c.text)).toEqual(["// real comment", "/* block */"]);
  });

  it("no comment names a file outside the repository, a missing path, a missing section or an issue number", () => {
    const problems: string[] = [];
    for (const file of sourceFiles()) {
      const text = fs.readFileSync(path.join(root, file), "utf8");
      for (const c of commentsOf(file, text)) for (const p of referenceProblems(c.text, docs)) problems.push(`${file}:${c.line} ${p}`);
    }
    expect(problems).toEqual([]);
    // every source file of the repository read and scanned: CPU-bound, 10 s on a quiet machine, past 30 s beside the browser suite
  }, 180_000);

  it("the data model's comments (prisma/schema.prisma) follow the same rule", () => {
    const problems: string[] = [];
    const lines = fs.readFileSync(path.join(root, "prisma/schema.prisma"), "utf8").split("\n");
    lines.forEach((line, i) => {
      const at = line.indexOf("//");
      if (at >= 0) for (const p of referenceProblems(line.slice(at), docs)) problems.push(`prisma/schema.prisma:${i + 1} ${p}`);
    });
    expect(problems).toEqual([]);
    expect(lines.filter((l) => l.includes("//")).length).toBeGreaterThan(50);
  });

  it("finds citations of headings that no page holds", () => {
    expect(headingProblems('// README "Connect your systems"')).toEqual([]);
    expect(headingProblems('/* docs/operations.md\n * "Behind a transaction pooler" */')).toEqual([]);
    expect(headingProblems('// README "Security: limits and what exceeding them answers"')).toHaveLength(1);
    expect(headingProblems('// docs/nowhere.md "Anything"')).toEqual(["cites docs/nowhere.md, which is not in the repository"]);
  });

  it("every heading a comment or the project's Markdown cites by name exists", () => {
    const problems: string[] = [];
    for (const file of sourceFiles()) {
      const text = fs.readFileSync(path.join(root, file), "utf8");
      for (const c of commentsOf(file, text)) for (const p of headingProblems(c.text)) problems.push(`${file}:${c.line} ${p}`);
    }
    const mds = ["README.md", "CONTRIBUTING.md", "bench/README.md", "packages/client/README.md", ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    for (const md of mds) for (const p of headingProblems(fs.readFileSync(path.join(root, md), "utf8"))) problems.push(`${md} ${p}`);
    expect(problems).toEqual([]);
  }, 180_000);

  it("every path the project's Markdown names in backticks exists", () => {
    const problems: string[] = [];
    const mds = ["README.md", "CONTRIBUTING.md", ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    for (const md of mds) {
      const text = fs.readFileSync(path.join(root, md), "utf8");
      for (const m of text.matchAll(/`([^`\s]+)`/g)) {
        for (const p of m[1].matchAll(PATH)) if (!exists(p[1])) problems.push(`${md} names ${p[1]}`);
      }
      for (const p of ["DESIGN.md", "API.md", "STYLE.md", "../shared"]) if (new RegExp(`(?<![\\w/])${p.replace(/\./g, "\\.")}`).test(text)) problems.push(`${md} cites ${p}`);
    }
    expect(problems).toEqual([]);
  });
});
