import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApi } from "./openapi";

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with every path of API.md and request bodies from the zod schemas", () => {
    const body = z.object({ taskRevision: z.number().int(), steps: z.array(z.unknown()) }).strict();
    const doc = buildOpenApi({ submitRun: body, edit: body, approve: body, reject: body });
    expect(doc.openapi).toBe("3.1.0");
    for (const path of [
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
      "/api/runs/{runId}/edits/{version}",
      "/api/audit/diffs.jsonl",
      "/api/admin/tools",
      "/api/admin/tools/import",
      "/api/admin/agents/{agentId}/allowed-tools",
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    const schema = (doc.paths["/api/v1/tasks/{taskId}/runs"].post.requestBody as { content: { "application/json": { schema: { required?: string[]; additionalProperties?: boolean } } } }).content["application/json"].schema;
    expect(schema.required).toEqual(["taskRevision", "steps"]);
    expect(schema.additionalProperties).toBe(false);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc); // serialisable as JSON
  });
});
