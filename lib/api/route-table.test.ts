import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { proxy } from "@/proxy";
import { matchApiRoute } from "./route-table";

const API_DIR = path.resolve(__dirname, "../../app/api");

/** Every route file under app/api as [path template, exported methods]. */
function routeFiles(dir = API_DIR): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...routeFiles(full));
    else if (name === "route.ts") {
      const rel = "/api/" + path.relative(API_DIR, dir).split(path.sep).join("/");
      const template = rel.replace(/\[\.\.\.(\w+)\]/g, "x/y/z").replace(/\[(\w+)\]/g, "some_id");
      const methods = [...readFileSync(full, "utf8").matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]);
      out.push([template, methods]);
    }
  }
  return out;
}

describe("the API route table", () => {
  it("knows every route file and every method it exports, and no other method", () => {
    const files = routeFiles();
    expect(files.length).toBeGreaterThan(40);
    for (const [p, methods] of files) {
      for (const m of methods) expect(matchApiRoute(p, m), `${m} ${p}`).toEqual({ kind: "found" });
      for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((x) => !methods.includes(x))) {
        const found = matchApiRoute(p, m);
        expect(found.kind, `${m} ${p}`).toBe("method_not_allowed");
        if (found.kind === "method_not_allowed") for (const x of methods) expect(found.allow).toContain(x);
      }
    }
  });

  it("finds nothing at paths no route has", () => {
    for (const p of ["/api", "/api/nope", "/api/v1/nope", "/api/runs/r1/nope", "/api/v1/runs/r1/steps", "/api/runs/r1/steps/s1/reconcile/extra"]) {
      expect(matchApiRoute(p, "GET"), p).toEqual({ kind: "not_found" });
    }
    expect(matchApiRoute("/api/runs/r1", "GET")).toEqual({ kind: "found" });
    expect(matchApiRoute("/api/auth/sign-in/email", "POST")).toEqual({ kind: "found" });
  });
});

describe("the proxy answers unknown API paths and methods in the API's error shape", () => {
  const call = async (method: string, url: string) => {
    const res = proxy(new NextRequest(new URL(url, "http://localhost:3000"), { method }));
    return { status: res.status, allow: res.headers.get("allow"), type: res.headers.get("content-type"), body: res.status >= 400 ? await res.json() : null };
  };

  it("404 not_found for /api/nope and /api/v1/nope", async () => {
    for (const url of ["/api/nope", "/api/v1/nope", "/api/v1/runs/r1/nope"]) {
      const r = await call("GET", url);
      expect(r.status, url).toBe(404);
      expect(r.type).toContain("application/json");
      expect(r.body.error.code).toBe("not_found");
      expect(typeof r.body.error.message).toBe("string");
    }
  });

  it("405 method_not_allowed with Allow for a wrong method", async () => {
    const r = await call("DELETE", "/api/runs");
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe("method_not_allowed");
    expect(r.allow).toContain("GET");
    const put = await call("PUT", "/api/v1/tasks/task_1/runs");
    expect(put.status).toBe(405);
    expect(put.allow).toContain("POST");
  });

  it("lets a known route through", async () => {
    const r = await call("GET", "/api/runs");
    expect(r.status).toBe(200);
    expect(r.body).toBeNull();
  });
});
