import { describe, expect, it } from "vitest";
import { completenessOf } from "./completeness";
import { keepReasons } from "../plan/reasons";
import { validatePlan } from "./pipeline";
import { codes, completeRefund, ctx, plan, requiring, step, validArgs } from "../../testing/validation-context";
import { defaultGateRules, IRREVERSIBLE_REQUIRED_FIELDS } from "../gate-policy/defaults";
import { toolCatalog } from "../tools/builtin-tools";

/** The seeded policy (defaultGateRules): the irreversible tools' rules require title, evidence, risk and stop condition. */
const seeded = () => ({
  gateRules: {
    policy: { version: 1, rules: defaultGateRules(Object.values(toolCatalog)).map((r, i) => ({ ...r, id: `d${i}`, position: i })) },
    desk: "freight",
    accountId: "acc_nordkapp",
    accountTags: [],
  },
});

describe("completeness by policy", () => {
  it("the seeded policy requires title, evidence, risk and stop condition of every irreversible tool, nothing of the others", () => {
    for (const r of defaultGateRules(Object.values(toolCatalog))) {
      const tool = toolCatalog[r.tool as keyof typeof toolCatalog];
      expect(r.requiredFields, r.tool ?? "").toEqual(tool.effect === "irreversible" ? [...IRREVERSIBLE_REQUIRED_FIELDS] : []);
    }
    expect(defaultGateRules(Object.values(toolCatalog)).filter((r) => r.requiredFields.length > 0).map((r) => r.tool).sort()).toEqual(["apply_credit", "cancel_shipment", "issue_refund", "waive_fee"]);
  });

  it("counts the five reason fields: '4 of 5 filled', with required ones that are missing named", () => {
    const c = completenessOf({ title: "Refund", rationale: "Late delivery", evidence: [{ recordType: "invoice", recordId: "in_1" }], risk: " " }, ["risk", "stopCondition"]);
    expect(c).toMatchObject({ filled: 3, total: 5, missingRequired: ["risk", "stopCondition"] });
    expect(completenessOf({ title: "Refund", rationale: "Late delivery", evidence: [{ readStepId: "x" }], risk: "Money leaves" }).filled).toBe(4);
  });

  it("a field counts as filled only with words a person can read: not blank-looking, invisible or placeholder text", () => {
    const empty = ["x", "X", "-", "—", "n/a", "N/A", "TBD", "todo", "...", "?", "\u200B", "\u200B\u200B\u200B", "\u3164", "\u2800\u2800", "\u00A0", "x\u200Bx", " . ", "lorem ipsum"];
    for (const risk of empty) expect(completenessOf({ risk }, ["risk"]).missingRequired, JSON.stringify(risk)).toEqual(["risk"]);
    const words = ["Money leaves the company", "ok", "Kunde zahlt doppelt", "退款", "Refund of $1,489.00", "Ｒｅｆｕｎｄ"];
    for (const risk of words) expect(completenessOf({ risk }, ["risk"]).missingRequired, risk).toEqual([]);
  });

  it("an agent's refund whose required fields hold placeholders is refused at submit like one without them", () => {
    const r = validatePlan(plan({ ...step("r", "issue_refund", validArgs.issue_refund), title: "x", risk: "\u200B", stopCondition: "n/a", evidence: [{ recordType: "invoice", recordId: "in_74119" }] }), ctx(seeded()));
    expect(r.ok).toBe(false);
    expect(r.issues.filter((i) => i.code === "missing_required_field").map((i) => i.details?.field)).toEqual(["title", "risk", "stopCondition"]);
  });

  it("under the seeded policy an agent's refund with no title, evidence, risk or stop condition is refused at submit", () => {
    const r = validatePlan(plan(step("r", "issue_refund", validArgs.issue_refund)), ctx(seeded()));
    expect(r.ok).toBe(false);
    expect(codes(r).sort()).toEqual(["evidence_missing", "missing_required_field", "missing_required_field", "missing_required_field"]);
    const fields = r.issues.filter((i) => i.code === "missing_required_field").map((i) => i.details?.field);
    expect(fields).toEqual(["title", "risk", "stopCondition"]);
    expect(r.issues.find((i) => i.details?.field === "risk")?.message).toBe("Step 1 (issue_refund) needs a risk under the gate policy (1 of 5 filled)");
  });

  it("a complete refund passes that policy; reversible and internal tools require nothing", () => {
    expect(validatePlan(plan(completeRefund("r")), ctx(seeded())).issues).toEqual([]);
    expect(validatePlan(plan(step("m", "reschedule_delivery", validArgs.reschedule_delivery)), ctx(seeded())).ok).toBe(true);
  });

  it("a stored plan checked again, and a step a person's edit leaves as it was, are asked for the fields with warnings; a rule may require any subset", () => {
    const stored = plan(step("r", "issue_refund", validArgs.issue_refund));
    const basePlan = validatePlan(stored, ctx()).plan!;
    const untouched = validatePlan(plan(step("r", "issue_refund", validArgs.issue_refund), step("n", "add_ticket_note", validArgs.add_ticket_note)), ctx({ ...seeded(), phase: "edit", basePlan }));
    expect(untouched.ok).toBe(true);
    expect(untouched.issues.filter((i) => i.code === "missing_required_field").every((i) => i.severity === "warning")).toBe(true);
    const recheck = validatePlan(stored, ctx({ ...seeded(), phase: "recheck" }));
    expect(recheck.ok).toBe(true);
    expect(recheck.issues.every((i) => i.severity === "warning")).toBe(true);
    const onlyTitle = validatePlan(plan(step("n", "add_ticket_note", validArgs.add_ticket_note)), ctx({ gateRules: requiring({ add_ticket_note: ["title"] }) }));
    expect(codes(onlyTitle)).toEqual(["missing_required_field"]);
  });
});

describe("a person's step is held to the required fields like the agent's", () => {
  const note = () => step("n", "add_ticket_note", validArgs.add_ticket_note);
  const agentRefund = () => step("r", "issue_refund", validArgs.issue_refund);
  /** The agent's plan as stored: a note, and a refund without title, evidence, risk or stop condition. */
  const basePlan = () => validatePlan(plan(note(), agentRefund()), ctx()).plan!;
  const edit = (...steps: unknown[]) => validatePlan(plan(...steps), ctx({ ...seeded(), phase: "edit", basePlan: basePlan() }));
  const errorsAt = (r: ReturnType<typeof validatePlan>) => r.issues.filter((i) => i.severity === "error").map((i) => `${i.code} ${i.path}`);

  it("a refund the person added with 0 of the 4 required fields refuses the edit, each missing field an error at its path", () => {
    const r = edit(note(), agentRefund(), step("p", "issue_refund", validArgs.issue_refund));
    expect(r.ok).toBe(false);
    expect(errorsAt(r).sort()).toEqual(["evidence_missing steps.2.evidence", "missing_required_field steps.2.risk", "missing_required_field steps.2.stopCondition", "missing_required_field steps.2.title"]);
    // the agent's refund the edit leaves as it was keeps its warnings
    expect(r.issues.filter((i) => i.path?.startsWith("steps.1.")).every((i) => i.severity === "warning")).toBe(true);
  });

  it("an added refund whose reasons are 'x' or a zero-width space is refused the same way", () => {
    for (const blank of ["x", "\u200B"]) {
      const r = edit(note(), agentRefund(), { ...step("p", "issue_refund", validArgs.issue_refund), title: blank, risk: blank, stopCondition: blank, evidence: [] });
      expect(r.ok, JSON.stringify(blank)).toBe(false);
      expect(errorsAt(r).sort(), JSON.stringify(blank)).toEqual(["evidence_missing steps.2.evidence", "missing_required_field steps.2.risk", "missing_required_field steps.2.stopCondition", "missing_required_field steps.2.title"]);
    }
  });

  it("the same refund with its four fields filled is accepted", () => {
    const r = edit(note(), agentRefund(), completeRefund("p", { evidence: [{ recordType: "ticket", recordId: "74991" }] }));
    expect(errorsAt(r)).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it("an edit that only moves or keeps the agent's refund without its fields gets warnings, not a refusal", () => {
    for (const steps of [[note(), agentRefund()], [agentRefund(), note()]]) {
      const r = edit(...steps);
      expect(r.ok).toBe(true);
      const missing = r.issues.filter((i) => i.code === "missing_required_field" || i.code === "evidence_missing");
      expect(missing.length).toBe(4);
      expect(missing.every((i) => i.severity === "warning")).toBe(true);
    }
  });

  it("a refund whose amount the person changed needs the fields: refused without them, accepted with the reasons carried over from the base step", () => {
    const changedArgs = { ...validArgs.issue_refund, amount: { minor: 900, currency: "USD" } };
    const refused = edit(note(), step("r", "issue_refund", changedArgs));
    expect(refused.ok).toBe(false);
    expect(errorsAt(refused)).toContain("missing_required_field steps.1.risk");
    const reasons = { title: "Refund the damaged pallet", risk: "Money leaves the company", stopCondition: "The invoice was paid meanwhile", evidence: [{ recordType: "ticket", recordId: "74991" }] };
    const base = validatePlan(plan(note(), { ...agentRefund(), ...reasons }), ctx()).plan!;
    // what lib/plan/reasons.ts keepReasons gives the pipeline: the base step's reasons on the changed step
    const carried = keepReasons({ ...step("r", "issue_refund", changedArgs) }, base.steps[1]);
    const accepted = validatePlan(plan(note(), carried), ctx({ ...seeded(), phase: "edit", basePlan: base }));
    expect(errorsAt(accepted)).toEqual([]);
    expect(accepted.ok).toBe(true);
  });

  it("a re-check of the person's refund stored without the fields warns instead of refusing", () => {
    const r = validatePlan(plan(note(), agentRefund(), step("p", "issue_refund", validArgs.issue_refund)), ctx({ ...seeded(), phase: "recheck" }));
    expect(r.ok).toBe(true);
  });
});
