import fs from "node:fs";
import path from "node:path";
import { createElement, type ComponentType } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

// Route-level loading (docs/style.md §6): every page that reads on the server shows a skeleton
// while it renders, inside the app frame, and a loading boundary never decides a page's HTTP
// status (it streams with 200 once the skeleton is sent, so 404/403 are answered by layouts above it).

const APP = path.resolve(__dirname);

/** Every file named `name` under app/ (pages, not the API), as paths relative to app/. */
function filesNamed(name: string, dir = APP): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "api" ? [] : filesNamed(name, full);
    return e.name === name ? [path.relative(APP, full)] : [];
  });
}

const loadings = filesNamed("loading.tsx");

/** Pages that fetch nothing on the server (a redirect, the sign-in form) need no skeleton. */
const NO_SKELETON = new Set(["page.tsx", "admin/page.tsx", "sign-in/page.tsx"]);

describe("route-level loading", () => {
  it("every page that reads on the server has its own loading.tsx beside it", () => {
    const pages = filesNamed("page.tsx").filter((p) => !NO_SKELETON.has(p));
    const without = pages.filter((p) => !fs.existsSync(path.join(APP, path.dirname(p), "loading.tsx")));
    expect(without).toEqual([]);
    expect(loadings.length).toBe(pages.length);
  });

  it("each loading boundary wraps exactly one page (nested pages decide their 404/403 above their own boundary)", () => {
    for (const l of loadings) {
      const dir = path.dirname(l);
      const below = filesNamed("page.tsx", path.join(APP, dir));
      expect(below, `${l} wraps more than its own page`).toEqual([path.join(dir, "page.tsx")]);
    }
  });

  it.each(loadings)("%s renders a busy skeleton with a status in words, and no header of its own", async (file) => {
    const mod = (await import(path.join(APP, file))) as { default: ComponentType };
    const html = renderToStaticMarkup(createElement(mod.default));
    expect(count(html, /<main\b[^>]*aria-busy="true"/g)).toBe(1);
    expect(count(html, /data-testid="page-skeleton"/g)).toBe(1);
    const status = /<p role="status"[^>]*>([^<]*)<\/p>/.exec(html);
    expect(status?.[1]).toMatch(/^Loading (the|your) [a-z ]+…$/);
    expect(html).toContain('aria-hidden="true"'); // the grey blocks are hidden from assistive technology
    expect(html).not.toMatch(/<header\b|<h1\b/); // the header is the layout's; the page's title comes with it
  });
});

/** How often `re` (global) matches `html` (static markup; no DOM in this environment). */
function count(html: string, re: RegExp): number {
  return (html.match(re) ?? []).length;
}
