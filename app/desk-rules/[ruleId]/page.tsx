import type { Metadata } from "next";
import Link from "next/link";
import { DeskRuleForm } from "@/components/desk-rule-form";
import { RuleEffectText } from "@/components/rule-effect";
import { formatInstant } from "@/lib/text/format";
import { deskRuleFormOptions, getDeskRule } from "@/lib/server/desk-rules/list-desk-rules";
import { pageRefusal, requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Desk rule" };
export const dynamic = "force-dynamic";

/** `/desk-rules/{ruleId}`: edit a rule (a save is its next version; uncheck Enabled to disable it) and read its history. Supervisors and admins. */
export default async function DeskRulePage({ params }: { params: Promise<{ ruleId: string }> }) {
  const { ruleId } = await params;
  const viewer = await requirePageViewer(`/desk-rules/${ruleId}`);
  await requirePageRole(viewer, ["supervisor", "admin"], "view /desk-rules/{ruleId}");
  let data: Awaited<ReturnType<typeof getDeskRule>>;
  let options: Awaited<ReturnType<typeof deskRuleFormOptions>>;
  try {
    data = await getDeskRule(viewer, ruleId);
    options = await deskRuleFormOptions(viewer);
  } catch (e) {
    pageRefusal(e);
  }
  const { rule, versions } = data;
  return (
    <>
      <main className="mx-auto max-w-5xl px-4 py-6 sm:px-6">
        <p className="text-sm">
          <Link className="text-blue-800 underline" href="/desk-rules">
            Desk rules
          </Link>
        </p>
        <h1 className="mt-1 text-xl font-semibold">{rule.description}</h1>
        <p className="mt-1 text-sm text-slate-600">
          {rule.desk} · {rule.severity} · version {rule.version} · {rule.enabled ? "enabled" : "disabled"} · made by {rule.createdBy.name} {formatInstant(rule.createdAt)}
          {rule.source && (
            <>
              {" "}
              · from the recurring edit <code className="text-xs">{rule.source.tool}</code> {rule.source.pattern}
            </>
          )}
        </p>
        <p className="mt-1 text-sm">
          <RuleEffectText effect={rule.effect} />
        </p>
        <DeskRuleForm key={rule.version} desks={options.desks} tools={options.tools} rule={rule} />
        <section aria-labelledby="history-h" className="mt-6">
          <h2 id="history-h" className="font-semibold">
            History
          </h2>
          <ol className="mt-2 space-y-1 text-sm">
            {versions.map((v) => (
              <li key={v.version}>
                Version {v.version} · {v.severity} · {v.enabled ? "enabled" : "disabled"} · {v.inWords} · {v.createdBy.name} {formatInstant(v.createdAt)} — {v.note}
              </li>
            ))}
          </ol>
        </section>
      </main>
    </>
  );
}
