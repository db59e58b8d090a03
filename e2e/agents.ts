import { spawn } from "node:child_process";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { formatIsoDate } from "../lib/text/format";
import { createRun } from "./factory";

/** A running example agent (examples/<name>/index.ts) and what it printed. */
export interface ExampleAgent {
  output: string[];
  /** The run it proposed (parsed from "proposed run run_…"). */
  runId: Promise<string>;
  /** Its exit code. */
  exited: Promise<number>;
  text(): string;
}

/** Starts `npx tsx examples/<name>/index.ts` against the e2e server as the demo agent. */
/** The example agents under examples/ (each a folder with index.ts). */
export type ExampleName = "ai-sdk" | "openai-agents" | "langgraph" | "langchain";

export function startExample(name: ExampleName, baseURL: string): ExampleAgent {
  const output: string[] = [];
  const child = spawn("npx", ["tsx", `examples/${name}/index.ts`, "--url", baseURL, "--key", "pd_demo_agent_key", "--poll-ms", "300", "--timeout-s", "150"], {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  let found: (id: string) => void;
  const runId = new Promise<string>((resolve) => (found = resolve));
  const onData = (d: Buffer) => {
    output.push(String(d));
    const m = /proposed run (run_[A-Za-z0-9_-]+)/.exec(output.join(""));
    if (m) found(m[1]);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  return { output, runId, exited, text: () => output.join("") };
}

/** ISO date `n` days after `iso`. */
export function addDays(iso: string, n: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/**
 * In the browser, as the signed-in operator: opens the run, moves the delivery date four days
 * later in the plan form, saves the edit and approves all changes. Returns the new date.
 */
export async function editDateAndApprove(page: Page, runId: string): Promise<string> {
  await page.goto(`/runs/${runId}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #74991");
  await expect(page.getByTestId("step-reasons-call_resched")).toContainText("missed today's window");
  await page.screenshot({ path: test.info().outputPath("run-with-step-reasons.png"), fullPage: true });
  await page.getByRole("button", { name: "Edit plan" }).click();
  const from = page.locator('[id="steps.1.args.window.from"]');
  const to = page.locator('[id="steps.1.args.window.to"]');
  const newDate = addDays(await from.inputValue(), 4);
  await from.fill(newDate);
  await to.fill(newDate);
  await page.getByRole("button", { name: "Save edit" }).click();
  const review = page.getByRole("region", { name: /Your edit changed/ });
  await expect(review).toContainText(`${formatIsoDate(newDate)} (+4 days)`);
  // the button says exactly what it approves (issue 14): the steps still waiting, by position
  await expect(page.getByTestId("approve-all")).toHaveText(/^Approve (plan \(\d+ steps\)|\d+ remaining steps \(|step \d+$)/);
  await page.getByTestId("approve-all").click();
  await expect(page.getByTestId("run-status")).toHaveText(/Approved|Executing|Completed/);
  return newDate;
}

/** In the browser: opens the run and rejects it with `reason`. */
export async function rejectWithReason(page: Page, runId: string, reason: string): Promise<void> {
  await page.goto(`/runs/${runId}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #74991");
  await page.getByRole("button", { name: "Reject…" }).click();
  await page.getByLabel("Reason (the agent reads it)").fill(reason);
  await page.getByRole("button", { name: "Reject plan" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("Rejected");
}

/** The run as the agent API shows it (demo agent key). */
export async function runAsAgent(request: APIRequestContext, runId: string) {
  const res = await request.get(`/api/v1/runs/${runId}`, { headers: { authorization: "Bearer pd_demo_agent_key" } });
  expect(res.status()).toBe(200);
  return (await res.json()).run as {
    status: string;
    planVersion: number;
    steps: { id: string; tool: string; args: Record<string, unknown>; execution: null | { status: string; detail: string | null } }[];
  };
}

/**
 * The whole flow for one framework's example: the agent proposes, the operator edits the date
 * and approves in the browser, the agent resumes and every step runs through a claim with the
 * EDITED date; the example tells the model so.
 */
export async function editApproveExecute(page: Page, name: ExampleName, baseURL: string) {
  const agent = startExample(name, baseURL);
  const runId = await agent.runId;
  const newDate = await editDateAndApprove(page, runId);
  const code = await agent.exited;
  expect(code, agent.text()).toBe(0);
  const run = await runAsAgent(page.request, runId);
  expect(run.status).toBe("completed");
  const resched = run.steps.find((s) => s.tool === "reschedule_delivery")!;
  expect(resched.args.window).toEqual({ from: newDate, to: newDate });
  expect(resched.execution).toMatchObject({ status: "succeeded", detail: `Moved sh_5521 to ${newDate}…${newDate}.` });
  expect(run.steps.map((s) => s.execution?.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
  // The model was told what was actually done: the operator's date.
  const out = agent.text();
  expect(out).toMatch(new RegExp(`model saw reschedule_delivery .*"operatorEdited":true`));
  expect(out).toContain(`"window":{"from":"${newDate}","to":"${newDate}"}`);
  await page.reload();
  await expect(page.getByTestId("run-status")).toHaveText("Completed");
  return { runId, newDate, output: out };
}

/** The rejection flow: the operator rejects in the browser; the model reads the reason as the tool result. */
export async function rejectReachesModel(page: Page, name: ExampleName, baseURL: string) {
  const reason = `Customer asked us to hold delivery until they call back (${name}).`;
  const agent = startExample(name, baseURL);
  const runId = await agent.runId;
  await rejectWithReason(page, runId, reason);
  const code = await agent.exited;
  expect(code, agent.text()).toBe(0);
  const out = agent.text();
  expect(out).toContain(`decision: rejected — ${reason}`);
  for (const tool of ["add_ticket_note", "reschedule_delivery", "send_reply"]) {
    expect(out).toMatch(new RegExp(`model saw ${tool} \\(call_[a-z]+\\): .*The operator rejected the plan: ${reason.replace(/[().]/g, "\\$&")}`));
  }
  const run = await runAsAgent(page.request, runId);
  expect(run.status).toBe("rejected");
  expect(run.steps.every((s) => s.execution === null)).toBe(true);
}

/** The run as the agent API shows it, with its typed end (`outcome`). */
async function outcomeAsAgent(request: APIRequestContext, runId: string) {
  const res = await request.get(`/api/v1/runs/${runId}`, { headers: { authorization: "Bearer pd_demo_agent_key" } });
  expect(res.status()).toBe(200);
  return (await res.json()).run as { status: string; outcome: null | { code: string; supersededById?: string | null; stepId?: string | null; tool?: string }; steps: { id: string; tool: string; execution: null | { status: string } }[] };
}

/** The example's last lines, for failure messages. */
const tail = (agent: ExampleAgent) => agent.text().split("\n").slice(-30).join("\n");

/**
 * Superseded: while the example waits, the same agent submits a newer plan for the task; the
 * waiting example is told at once (no timeout) and every call is denied `superseded`, naming
 * the newer run. The newer run stays waiting (the next spec's run supersedes it).
 */
export async function supersededEndsTheWait(page: Page, name: ExampleName, baseURL: string) {
  const agent = startExample(name, baseURL);
  const runId = await agent.runId;
  const newer = await createRun(page.request, "ref-74991");
  expect(await agent.exited, tail(agent)).toBe(0);
  const run = await outcomeAsAgent(page.request, runId);
  expect(run.status).toBe("superseded");
  expect(run.outcome).toMatchObject({ code: "superseded", supersededById: newer });
  const out = agent.text();
  expect(out).toContain("decision: refused");
  expect(out).toMatch(/model saw reschedule_delivery \(call_resched\): .*Plandesk refused the plan \(superseded\)/);
  expect(out).toContain(newer);
  expect(run.steps.every((s) => s.execution === null)).toBe(true);
}

/**
 * Revised while waiting: the ticketing integration records a change of the task while the run
 * waits for review; the run stops at once (nothing can approve it any more) and the example is
 * told `stopped_stale_task`, with nothing claimed or written.
 */
export async function revisedWhileWaiting(page: Page, name: ExampleName, baseURL: string) {
  const agent = startExample(name, baseURL);
  const runId = await agent.runId;
  const revised = await page.request.post("/api/v1/tasks/task_74991/revisions", {
    headers: { authorization: "Bearer pd_demo_integration_key" },
    data: { comment: `Customer called again about sh_5521 (${name} e2e).` },
  });
  expect(revised.status(), await revised.text()).toBe(201);
  expect(await agent.exited, tail(agent)).toBe(0);
  const run = await outcomeAsAgent(page.request, runId);
  expect(run.status).toBe("stopped");
  expect(run.outcome).toMatchObject({ code: "stopped_stale_task" });
  expect(agent.text()).toMatch(/model saw reschedule_delivery \(call_resched\): .*Plandesk refused the plan \(stopped_stale_task\)/);
  expect(run.steps.every((s) => s.execution === null)).toBe(true);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-status")).toHaveText(/Stopped/);
}

/**
 * A step the agent cannot execute: the operator adds `escalate_ticket` (which the demo desk's
 * example tools do not implement) after the note and approves; the example writes the note,
 * reports the escalation `cannot_execute` — the run ends typed, naming the step — and writes
 * nothing after it.
 */
export async function cannotExecuteEndsTyped(page: Page, name: ExampleName, baseURL: string) {
  const agent = startExample(name, baseURL);
  const runId = await agent.runId;
  const view = (await (await page.request.get(`/api/runs/${runId}`)).json()).run as { planVersion: number; steps: { id: string; tool: string; args: unknown }[] };
  const steps = view.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args }));
  steps.splice(1, 0, { id: "op_escalate", tool: "escalate_ticket", args: { ticketId: "74991", team: "operations", note: "Driver no-show on sh_5521." } });
  const edited = await page.request.post(`/api/runs/${runId}/edits`, { headers: { origin: baseURL }, data: { baseVersion: view.planVersion, steps } });
  expect(edited.status(), await edited.text()).toBe(201);
  const version = ((await (await page.request.get(`/api/runs/${runId}`)).json()).run as { planVersion: number }).planVersion;
  const approved = await page.request.post(`/api/runs/${runId}/approvals`, { headers: { origin: baseURL }, data: { planVersion: version, stepIds: "all", idempotencyKey: `e2e-cannot-${runId}` } });
  expect(approved.ok(), await approved.text()).toBe(true);
  expect(await agent.exited, tail(agent)).toBe(0);
  const run = await outcomeAsAgent(page.request, runId);
  expect(run.status).toBe("failed");
  const escalation = run.steps.find((s) => s.tool === "escalate_ticket")!; // the console gives an added step its own id
  expect(run.outcome).toMatchObject({ code: "cannot_execute", stepId: escalation.id, tool: "escalate_ticket" });
  expect(run.steps.map((s) => [s.tool, s.execution?.status ?? null])).toEqual([
    ["add_ticket_note", "succeeded"],
    ["escalate_ticket", "failed"], // stored failed, flagged for a person
    ["reschedule_delivery", null],
    ["send_reply", null],
  ]);
  expect(agent.text()).toContain("cannot_execute");
}
