"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import { DESK_RULE_KINDS, deskRuleCreateSchema, deskRuleSaveSchema, describeRule, type DeskRuleKind, type DeskRuleParams } from "@/lib/desk-rules/rules";
import type { RulePrefill } from "@/lib/desk-rules/prefill";
import type { DeskRuleView } from "@/lib/desk-rules/view";
import { buttonClass, FormError, inputClass } from "./admin/form-bits";
import { toast } from "./toaster";

/** The fields a rule cannot be saved without (each kind's own fields only show for that kind). */
const REQUIRED: ReadonlySet<string> = new Set(["description", "note", "path", "days", "dates"]);

const KIND_LABELS: Record<DeskRuleKind, string> = {
  step_requires_prior: "A step needs another step before it",
  no_date_in: "A date is never one of these days",
  date_min_offset_days: "A date lies at least N days ahead",
  guidance: "Guidance for the agent only (not checked)",
};

interface Draft {
  desk: string;
  severity: "warning" | "error";
  description: string;
  kind: DeskRuleKind;
  tool: string;
  priorTool: string;
  path: string;
  dates: string;
  holidays: boolean;
  days: string;
  enabled: boolean;
  note: string;
}

function toDraft(r: { desk: string; severity: "warning" | "error"; description: string; rule: DeskRuleParams; enabled: boolean }): Draft {
  const p = r.rule;
  return {
    desk: r.desk,
    severity: r.severity,
    description: r.description,
    kind: p.kind,
    tool: p.tool,
    priorTool: p.kind === "step_requires_prior" ? p.priorTool : "add_ticket_note",
    path: p.kind === "no_date_in" || p.kind === "date_min_offset_days" ? p.path : "window.from",
    dates: p.kind === "no_date_in" ? p.dates.join(", ") : "",
    holidays: p.kind === "no_date_in" ? p.holidays : false,
    days: p.kind === "date_min_offset_days" ? String(p.days) : "2",
    enabled: r.enabled,
    note: "",
  };
}

/** The typed rule the draft describes (unchecked: the schemas check it). */
function ruleOf(d: Draft): unknown {
  switch (d.kind) {
    case "step_requires_prior":
      return { kind: d.kind, tool: d.tool, priorTool: d.priorTool };
    case "no_date_in":
      return { kind: d.kind, tool: d.tool, path: d.path.trim(), dates: d.dates.split(/[\s,]+/).filter(Boolean), holidays: d.holidays };
    case "date_min_offset_days":
      return { kind: d.kind, tool: d.tool, path: d.path.trim(), days: d.days.trim() === "" ? Number.NaN : Number(d.days) };
    case "guidance":
      return { kind: d.kind, tool: d.tool };
  }
}

/**
 * The desk-rule form: a new rule (prefilled from a recurring edit on /insights, or blank) or the
 * next version of an existing one. Fields by kind; checked in the browser by the same schemas the
 * server uses (lib/desk-rules/rules.ts), then sent to `POST /api/desk-rules` or `PUT
 * /api/desk-rules/{id}`. A save that lost a race (409 `stale_desk_rule`) says who saved first.
 */
export function DeskRuleForm(props: {
  desks: readonly { id: string; name: string }[];
  tools: readonly string[];
  prefill?: RulePrefill | null;
  rule?: DeskRuleView;
}) {
  const router = useRouter();
  const { desks, tools, prefill, rule } = props;
  const [d, setD] = useState<Draft>(() =>
    rule
      ? toDraft(rule)
      : prefill
        ? toDraft({ desk: prefill.desk ?? desks[0]?.id ?? "", severity: prefill.severity, description: prefill.description, rule: prefill.rule, enabled: true })
        : toDraft({ desk: desks[0]?.id ?? "", severity: "warning", description: "", rule: { kind: "guidance", tool: tools[0] ?? "" }, enabled: true }),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  // Refused input moves the focus to the first field that says why (never left on the button).
  const formRef = useRef<HTMLFormElement>(null);
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    if (refusals > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refusals]);
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));

  const parsedRule = deskRuleCreateSchema.shape.rule.safeParse(ruleOf(d));
  const inWords = parsedRule.success ? describeRule(parsedRule.data) : null;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    const body = rule
      ? { baseVersion: rule.version, severity: d.severity, description: d.description, rule: ruleOf(d), enabled: d.enabled, note: d.note }
      : { desk: d.desk, severity: d.severity, description: d.description, rule: ruleOf(d), enabled: d.enabled, source: prefill?.source ?? null, note: d.note };
    const checked = rule ? deskRuleSaveSchema.safeParse(body) : deskRuleCreateSchema.safeParse(body);
    if (!checked.success) {
      const next: Record<string, string> = {};
      for (const i of checked.error.issues) {
        const key = i.path.at(-1) === "rule" ? "kind" : String(i.path.at(-1) ?? "form");
        next[key] ??= i.message;
      }
      setErrors(next);
      // a refusal no field on screen shows (e.g. the rule as a whole) is said above the form
      const unshown = Object.keys(next).filter((k) => !formRef.current?.querySelector(`#dr-${k}`));
      if (unshown.length > 0) setFormError(`${unshown.map((k) => next[k]).join(" ")} Nothing was saved.`);
      setRefusals((n) => n + 1);
      return;
    }
    setErrors({});
    setPending(true);
    try {
      const res = await apiFetch<{ rule: DeskRuleView }>(rule ? `/api/desk-rules/${rule.id}` : "/api/desk-rules", { method: rule ? "PUT" : "POST", body: checked.data });
      toast(rule ? `Saved version ${res.rule.version} of the rule.` : `Made the rule on ${res.rule.desk}; the validator applies it from the next plan.`);
      router.push(`/desk-rules/${res.rule.id}`);
      router.refresh();
    } catch (err) {
      if (err instanceof ApiError && err.code === "stale_desk_rule") {
        const by = (err.details.savedBy as { name?: string } | null)?.name;
        setFormError(`${by ? `${by} saved` : "Someone saved"} version ${String(err.details.version)} first. Nothing was saved; reload to see it.`);
      } else if (err instanceof ApiError && Array.isArray(err.details.issues)) {
        const next: Record<string, string> = {};
        for (const i of err.details.issues as { path?: string; message?: string }[]) next[String(i.path ?? "form").split(".").at(-1)!] ??= i.message ?? "Not valid";
        setErrors(next);
        setRefusals((n) => n + 1);
        setFormError(`${err.message} Nothing was saved.`);
      } else setFormError(err instanceof ApiError ? `${err.message} Nothing was saved.` : "Saving failed; nothing changed.");
    } finally {
      setPending(false);
    }
  }

  const field = (id: string, label: string, control: React.ReactNode, help?: string) => (
    <div>
      <label htmlFor={`dr-${id}`} className="block text-sm font-medium">
        {label}
        {REQUIRED.has(id) && <span className="font-normal text-slate-600"> (required)</span>}
      </label>
      {control}
      {help && !errors[id] && <p className="mt-1 text-xs text-slate-500">{help}</p>}
      {errors[id] && (
        <p id={`dr-${id}-error`} className="mt-1 text-sm text-red-700">
          {errors[id]}
        </p>
      )}
    </div>
  );
  const aria = (id: string) => ({
    id: `dr-${id}`,
    "aria-invalid": !!errors[id],
    "aria-required": REQUIRED.has(id) || undefined,
    "aria-describedby": errors[id] ? `dr-${id}-error` : undefined,
  });
  const toolSelect = (id: "tool" | "priorTool") => (
    <select {...aria(id)} value={d[id]} onChange={(e) => set(id, e.target.value)} className={inputClass}>
      {!tools.includes(d[id]) && <option value={d[id]}>{d[id] || "(choose a tool)"}</option>}
      {tools.map((t) => (
        <option key={t} value={t}>
          {t}
        </option>
      ))}
    </select>
  );

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="mt-4 space-y-4 rounded-lg border border-slate-200 bg-white p-4" aria-label={rule ? `Desk rule, version ${rule.version}` : "New desk rule"}>
      <FormError message={formError} />
      <div className="grid gap-4 sm:grid-cols-3">
        {field(
          "desk",
          "Desk",
          <select {...aria("desk")} value={d.desk} disabled={!!rule} onChange={(e) => set("desk", e.target.value)} className={inputClass}>
            {desks.map((x) => (
              <option key={x.id} value={x.id}>
                {x.name} ({x.id})
              </option>
            ))}
          </select>,
        )}
        {field(
          "severity",
          "Severity",
          <select {...aria("severity")} value={d.severity} onChange={(e) => set("severity", e.target.value as Draft["severity"])} className={inputClass}>
            <option value="warning">Warning (shown on the card and the review)</option>
            <option value="error">Error (the plan is refused)</option>
          </select>,
        )}
        {field(
          "kind",
          "Rule kind",
          <select {...aria("kind")} value={d.kind} onChange={(e) => set("kind", e.target.value as DeskRuleKind)} className={inputClass}>
            {DESK_RULE_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>,
        )}
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        {field("tool", "Tool", toolSelect("tool"))}
        {d.kind === "step_requires_prior" && field("priorTool", "Tool that must come first", toolSelect("priorTool"))}
        {(d.kind === "no_date_in" || d.kind === "date_min_offset_days") &&
          field("path", "Argument path", <input {...aria("path")} value={d.path} onChange={(e) => set("path", e.target.value)} className={`${inputClass} font-mono`} autoComplete="off" />, "e.g. window.from, or window for every day of it")}
        {d.kind === "date_min_offset_days" &&
          field("days", "Days after today, at least", <input {...aria("days")} inputMode="numeric" value={d.days} onChange={(e) => set("days", e.target.value)} className={inputClass} autoComplete="off" />)}
        {d.kind === "no_date_in" && field("dates", "Dates it is never (YYYY-MM-DD, comma-separated)", <input {...aria("dates")} value={d.dates} onChange={(e) => set("dates", e.target.value)} className={`${inputClass} font-mono`} autoComplete="off" />)}
      </div>
      {d.kind === "no_date_in" && (
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={d.holidays} onChange={(e) => set("holidays", e.target.checked)} /> Nor a holiday of the shipment&apos;s destination
        </label>
      )}
      {field(
        "description",
        "Description (what the agent and the card read)",
        <input {...aria("description")} value={d.description} onChange={(e) => set("description", e.target.value)} className={inputClass} autoComplete="off" />,
      )}
      <p className="text-sm text-slate-600" data-testid="rule-in-words">
        {inWords ? `Checks: ${inWords}.` : "Fill in the rule's fields to see what it checks."}
      </p>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={d.enabled} onChange={(e) => set("enabled", e.target.checked)} /> Enabled (the validator applies it)
      </label>
      <div className="flex flex-wrap items-end gap-3 border-t border-slate-100 pt-3">
        <div className="min-w-0 flex-1 sm:max-w-md">{field("note", "Why (a note for the audit)", <input {...aria("note")} value={d.note} onChange={(e) => set("note", e.target.value)} className={inputClass} autoComplete="off" />)}</div>
        <button type="submit" className={buttonClass} disabled={pending}>
          {pending ? "Saving…" : rule ? `Save as version ${rule.version + 1}` : "Make the rule"}
        </button>
      </div>
    </form>
  );
}
