import type { ToolEffect } from "@/lib/tools/types";

const EFFECT: Record<ToolEffect, { label: string; cls: string }> = {
  internal: { label: "Internal", cls: "bg-slate-100 text-slate-800" },
  reversible: { label: "Reversible", cls: "bg-sky-100 text-sky-900" },
  customer_visible: { label: "Customer-visible", cls: "bg-violet-100 text-violet-900" },
  irreversible: { label: "Irreversible", cls: "bg-rose-100 text-rose-900" },
};

/** The effect class of a tool, as a small badge. */
export function EffectBadge({ effect }: { effect: ToolEffect }) {
  const e = EFFECT[effect];
  return <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${e.cls}`}>{e.label}</span>;
}

/** Whether a step needs a person's approval or is auto-approved by the gate policy. */
export function GateBadge({ gate }: { gate: "approval_required" | "auto" }) {
  return gate === "auto" ? (
    <span className="rounded bg-emerald-100 px-1.5 py-0.5 text-xs font-medium text-emerald-900">Auto-approved by policy</span>
  ) : (
    <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-950">Needs approval</span>
  );
}
