import { describe, expect, it } from "vitest";
import { gatewayDeadlinePassed, mcpGatewayConnection, readGatewayAnswer } from "../src/index";

/**
 * The MCP-gateway helpers of the package (src/mcp-gateway.ts): the connection an MCP client is
 * given instead of the upstream server's, and what a tools/call through the gateway answered, in
 * each of the gateway's answer shapes (docs/api-extensions.md "MCP gateway"). The helpers against
 * a real gateway: app/api/mcp/demo-gateway.test.ts (examples/mcp-gateway).
 */
describe("mcpGatewayConnection", () => {
  it("is Plandesk's /api/mcp with the agent's key, and the task header only when a task is named", () => {
    expect(mcpGatewayConnection({ baseUrl: "http://localhost:3000/", apiKey: "pd_demo_agent_key", taskId: "task_74991" })).toEqual({
      url: "http://localhost:3000/api/mcp",
      headers: { authorization: "Bearer pd_demo_agent_key", "plandesk-task-id": "task_74991" },
    });
    expect(mcpGatewayConnection({ baseUrl: "https://plandesk.example.com", apiKey: "k" }).headers).toEqual({ authorization: "Bearer k" });
    expect(() => mcpGatewayConnection({ baseUrl: "localhost:3000", apiKey: "k" })).toThrow(TypeError);
  });
});

describe("readGatewayAnswer", () => {
  const text = (t: string) => [{ type: "text", text: t }];
  it("a held write is pending with its run, step and deadline", () => {
    const held = { content: text("held"), isError: false, structuredContent: { status: "pending", runId: "run_1", stepId: "s1", runStatus: "pending_review", poll: "/api/v1/runs/run_1", gatewayCallId: "gwc_1", expiresAt: "2026-12-06T10:00:00.000Z" } };
    expect(readGatewayAnswer(held)).toEqual({ kind: "pending", runId: "run_1", stepId: "s1", runStatus: "pending_review", poll: "/api/v1/runs/run_1", expiresAt: "2026-12-06T10:00:00.000Z" });
    // a console that does not say its deadline: ""
    expect(readGatewayAnswer({ structuredContent: { status: "pending", runId: "run_1" } })).toMatchObject({ kind: "pending", expiresAt: "" });
  });
  it("a refusal is rejected with its code, message and issues; a run that ended without executing names its run", () => {
    const refused = { content: text("Refused"), isError: true, structuredContent: { status: "rejected", code: "validation_failed", message: "date: Use an ISO date", issues: [{ path: "steps.0.args.date" }] } };
    expect(readGatewayAnswer(refused)).toEqual({ kind: "rejected", code: "validation_failed", message: "date: Use an ISO date", issues: [{ path: "steps.0.args.date" }] });
    expect(readGatewayAnswer({ isError: true, structuredContent: { status: "rejected", code: "run_rejected", message: "No", runId: "run_2" } })).toMatchObject({ kind: "rejected", code: "run_rejected", issues: [], runId: "run_2" });
  });
  it("a lost answer is unknown", () => {
    expect(readGatewayAnswer({ isError: true, structuredContent: { status: "unknown", runId: "run_3", stepId: "s1", message: "lost" } })).toEqual({ kind: "unknown", runId: "run_3", stepId: "s1", message: "lost" });
  });
  it("the upstream's own answer is a result: a read names its read id, an executed write its run", () => {
    const read = { content: text('{"status":"in_transit"}'), _meta: { "plandesk/readId": "gwc_9", "plandesk/readStatus": "ok" } };
    expect(readGatewayAnswer(read)).toEqual({ kind: "result", result: read, readId: "gwc_9" });
    const done = { content: text('{"status":"booked"}'), _meta: { "plandesk/runId": "run_4", "plandesk/stepId": "s1", "plandesk/status": "succeeded" } };
    expect(readGatewayAnswer(done)).toEqual({ kind: "result", result: done, runId: "run_4" });
    // an upstream's own error (not Plandesk's refusal shape) is its answer too
    expect(readGatewayAnswer({ isError: true, content: text("carrier down") })).toMatchObject({ kind: "result" });
  });
});

describe("gatewayDeadlinePassed", () => {
  const pending = (expiresAt: string) => ({ kind: "pending" as const, runId: "run_1", stepId: "s1", runStatus: "pending_review", poll: "", expiresAt });
  const deadline = Date.parse("2026-12-06T10:00:00.000Z");
  it("passes only once the deadline plus the grace is behind", () => {
    expect(gatewayDeadlinePassed(pending("2026-12-06T10:00:00.000Z"), deadline + 29_999)).toBe(false);
    expect(gatewayDeadlinePassed(pending("2026-12-06T10:00:00.000Z"), deadline + 30_001)).toBe(true);
    expect(gatewayDeadlinePassed(pending("2026-12-06T10:00:00.000Z"), deadline + 501, 500)).toBe(true);
  });
  it("a pending answer without a readable deadline never passes it", () => {
    expect(gatewayDeadlinePassed(pending(""), deadline + 1e12)).toBe(false);
    expect(gatewayDeadlinePassed(pending("tomorrow"), deadline + 1e12)).toBe(false);
  });
});
