import { describe, expect, it } from "vitest";
import { refusalsOf } from "./contract";
import { ENDPOINTS } from "./endpoints";
import { buildOpenApi } from "./openapi";
import { builtinTools } from "../tools/builtin-tools";

const API_PATHS = [
  "/api/v1/tasks",
  "/api/v1/tasks/{taskId}",
  "/api/v1/tasks/{taskId}/runs",
  "/api/v1/runs/{runId}",
  "/api/v1/runs/{runId}/steps/{stepId}/claim",
  "/api/v1/runs/{runId}/steps/{stepId}/outcome",
  "/api/v1/tasks/{taskId}/revisions",
  "/api/runs",
  "/api/runs/{runId}",
  "/api/runs/{runId}/edits",
  "/api/runs/{runId}/approvals",
  "/api/runs/{runId}/rejections",
  "/api/runs/{runId}/edits/{version}/discard",
  "/api/runs/{runId}/audit",
  "/api/audit/diffs.jsonl",
];

type Op = {
  operationId: string;
  requestBody?: { content: { "application/json": { schema: { required?: string[]; additionalProperties?: boolean } } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
};
const doc = buildOpenApi();
const op = (path: string, method: string) => (doc.paths as Record<string, Record<string, Op>>)[path][method];

describe("the OpenAPI document, generated from the endpoint declarations", () => {
  it("is OpenAPI 3.1, serialisable, with every path of docs/api.md", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const path of API_PATHS) expect(doc.paths, path).toHaveProperty([path]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it("has exactly one operation per declaration, and request bodies from the handlers' zod schemas", () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, Op>>).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
    const submit = op("/api/v1/tasks/{taskId}/runs", "post").requestBody!.content["application/json"].schema;
    expect(submit.required).toEqual(["taskRevision", "steps"]);
    expect(submit.additionalProperties).toBe(false);
  });

  it("lists every refusal code each endpoint can answer, under its status", () => {
    for (const e of ENDPOINTS) {
      const responses = op(e.path, e.method.toLowerCase()).responses;
      const listed = Object.values(responses).flatMap((r) => (r.description.startsWith("error.code: ") ? r.description.slice(12).split(" | ") : []));
      expect(listed.sort(), `${e.method} ${e.path}`).toEqual([...refusalsOf(e)].sort());
    }
    const claim = op("/api/v1/runs/{runId}/steps/{stepId}/claim", "post").responses;
    expect(claim["409"].description).toContain("stopped_stale_task");
    expect(claim["422"].description).toContain("validation_failed");
    expect(claim["409"].description).toContain("approval_revoked");
    expect(op("/api/runs", "get").responses["200"].content).toBeDefined();
  });

  it("the run schema carries the fields agents read (approvedVersion, escalateAt, stopReason)", () => {
    const run = (doc.components!.schemas as Record<string, { properties: Record<string, unknown> }>).Run;
    for (const f of ["approvedVersion", "escalateAt", "stopReason", "boundTaskRevision", "steps"]) expect(run.properties).toHaveProperty(f);
  });

  it("gives every built-in tool's arguments as a JSON Schema, with its effect and gate, from the tool's own zod schema", () => {
    const tools = (doc as unknown as { "x-plandesk-tools": { name: string; effect: string; gate: string; arguments: { $ref: string } }[] })["x-plandesk-tools"];
    const schemas = (doc.components as { schemas: Record<string, { type?: string; properties?: Record<string, unknown>; required?: string[] }> }).schemas;
    expect(tools.map((t) => t.name)).toEqual(builtinTools().map((t) => t.name));
    for (const t of tools) {
      const schema = schemas[t.arguments.$ref.replace("#/components/schemas/", "")];
      expect(schema?.type, t.name).toBe("object");
      expect(Object.keys(schema.properties ?? {}).length, t.name).toBeGreaterThan(0);
    }
    const refund = schemas.issue_refundArguments;
    expect(refund.required).toEqual(expect.arrayContaining(["invoiceId", "amount", "reason"]));
    expect(tools.find((t) => t.name === "issue_refund")).toMatchObject({ effect: "irreversible", gate: "approval" });
    expect(JSON.stringify(refund.properties?.amount)).toMatch(/minor[\s\S]*currency/);
  });
});

