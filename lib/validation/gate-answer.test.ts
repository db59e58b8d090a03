import { describe, expect, it } from "vitest";
import { requirementsOf } from "../gate-policy/evaluate";
import { gateRule, type GatePolicy } from "../gate-policy/rules";
import { DEMO_INTENTS } from "../task-contract/demo-catalog";
import { taskContractSchema, type TaskContractInput, type TaskTextPart } from "../task-contract/schema";
import { getTool } from "../tools/builtin-tools";
import { ctx, plan, step, usd, validArgs } from "../../testing/validation-context";
import { describeGateAnswer } from "./gate-answer";
import { validatePlan } from "./pipeline";
import type { ValidationContext } from "./types";

/** The gate-policy dry-run's answer for each step of `steps` under `rules`, on a task with `contract` and `parts` (as the dry-run computes it). */
function answers(steps: ReturnType<typeof step>[], contract: TaskContractInput, rules: Parameters<typeof gateRule>[0][], parts?: TaskTextPart[]): Record<string, string> {
  const c = taskContractSchema.parse(contract);
  const task: ValidationContext["task"] = { contract: c, intent: DEMO_INTENTS.find((i) => i.name === c.intent) ?? null, parts: parts ?? [{ source: "system", text: "Customer asks what the detention fee covers.", revision: 1 }] };
  const policy: GatePolicy = { version: 2, rules: rules.map((r, i) => ({ ...gateRule(r), id: `r${i}`, position: i })) };
  const gateRules = { policy, desk: "freight", accountId: "acc_nordkapp", accountTags: [] };
  const p = plan(...steps) as { version: number; steps: { id: string; tool: string; args: unknown }[] };
  const result = validatePlan(p, ctx({ task, gateRules, runId: "run_x" }));
  const reqs = requirementsOf(p.steps, getTool, gateRules);
  return Object.fromEntries(p.steps.map((s) => [s.id, describeGateAnswer(s.id, reqs[s.id], result)]));
}

const refund = step("r", "issue_refund", { ...validArgs.issue_refund, amount: usd(500) });
const reply = step("s", "send_reply", validArgs.send_reply);

describe("the gate's answer the dry-run compares", () => {
  it("a step outside the task's intent is refused without a rule that lets a supervisor decide it, and waits for a supervisor with one", () => {
    expect(answers([refund], { intent: "question" }, [{ tool: "issue_refund", decision: "one" }]).r).toBe("refused: outside the task's intent");
    expect(answers([refund], { intent: "question" }, [{ tool: "issue_refund", decision: "one", allowOutsideContract: "supervisor", requiredFields: ["title"] }]).r).toBe(
      "1 approver · a supervisor decides (outside the task contract) · requires title",
    );
  });

  it("the outside-contract choice on a step inside the contract changes nothing", () => {
    const without = answers([reply], { intent: "question" }, [{ tool: "send_reply", decision: "one" }]);
    const withIt = answers([reply], { intent: "question" }, [{ tool: "send_reply", decision: "one", allowOutsideContract: "supervisor" }]);
    expect(withIt).toEqual(without);
    expect(without.s).toBe("1 approver");
  });

  it("a rule's auto is the gate's auto, except for a step the gate keeps for a person (text quoted from a customer's message)", () => {
    const note = step("n", "add_ticket_note", { ...validArgs.add_ticket_note, note: "Customer says the fee was waived" });
    expect(answers([note], { intent: "question" }, [{ tool: "add_ticket_note", decision: "auto" }]).n).toBe("auto");
    const quoted = { ...note, provenance: { note: { kind: "user_literal" as const, quote: "the fee was waived" } } };
    const parts: TaskTextPart[] = [{ source: "customer_message", text: "Customer says the fee was waived last month.", revision: 1 }];
    expect(answers([quoted], { intent: "question" }, [{ tool: "add_ticket_note", decision: "auto" }], parts).n).toBe("1 approver");
    expect(answers([quoted], { intent: "question" }, [{ tool: "add_ticket_note", decision: "one" }], parts).n).toBe("1 approver");
  });

  it("an irreversible step is never auto; two approvers and the author rule read as the rule says", () => {
    const task = { intent: "refund_request" };
    expect(answers([refund], task, [{ tool: "issue_refund", decision: "auto" }]).r).toBe("1 approver");
    expect(answers([refund], task, [{ tool: "issue_refund", decision: "two", authorMayApprove: false, dateHorizonDays: 30 }]).r).toBe("2 approvers (not the author) · horizon 30 days");
  });
});
