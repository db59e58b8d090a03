import type { Metadata } from "next";
import Link from "next/link";
import { DeskRuleToggle } from "@/components/desk-rule-toggle";
import { RuleEffectText } from "@/components/rule-effect";
import { listDeskRules } from "@/lib/server/desk-rules/list-desk-rules";
import { pageRefusal, requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Desk rules" };
export const dynamic = "force-dynamic";

/** `/desk-rules`: every desk's rules, newest first, with how often the edit each was made from still happens; supervisors and admins. */
export default async function DeskRulesPage() {
  const viewer = await requirePageViewer("/desk-rules");
  await requirePageRole(viewer, ["supervisor", "admin"], "view /desk-rules");
  let data: Awaited<ReturnType<typeof listDeskRules>>;
  try {
    data = await listDeskRules(viewer, { limit: 200 });
  } catch (e) {
    pageRefusal(e);
  }
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <div className="flex flex-wrap items-baseline gap-3">
          <h1 className="text-xl font-semibold">Desk rules</h1>
          <Link href="/desk-rules/new" className="ml-auto rounded-md border border-blue-700 px-3 py-1.5 text-sm font-medium text-blue-800 hover:bg-blue-50">
            New rule
          </Link>
        </div>
        <p className="mt-1 text-sm text-slate-600">
          Rules the validator applies to every plan of a desk — at submission, at every edit, at approval and at dispatch — as a warning on the card or an error that refuses the plan; the agent reads them at <code>GET /api/v1/guidance</code>. Make one from a recurring edit on{" "}
          <a className="underline" href="/insights">
            Insights
          </a>
          . Every save is a new version.
        </p>
        {data.rules.length === 0 ? (
          <p className="mt-6 rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600">No desk rules yet.</p>
        ) : (
          <div className="relative mt-4 max-w-full overflow-x-auto" data-scrolls-inside>
            <table className="w-full text-sm" data-testid="desk-rules">
              <thead>
                <tr className="border-b border-slate-200 text-left text-slate-600">
                  <th scope="col" className="py-1 pr-3 font-medium">Rule</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Desk</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Severity</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Version</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Still happens</th>
                  <th scope="col" className="py-1 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.rules.map((r) => (
                  <tr key={r.id} className="border-b border-slate-100 align-top">
                    <td className="py-1 pr-3">
                      <a className="font-medium text-blue-800 underline" href={`/desk-rules/${r.id}`}>
                        {r.description}
                      </a>
                      <div className="text-xs text-slate-600">{r.inWords}</div>
                      {!r.enabled && <span className="text-xs font-medium text-slate-500">disabled</span>}
                    </td>
                    <td className="py-1 pr-3">{r.desk}</td>
                    <td className="py-1 pr-3">{r.severity}</td>
                    <td className="py-1 pr-3 tabular-nums">{r.version}</td>
                    <td className="py-1 pr-3 text-xs">
                      <RuleEffectText effect={r.effect} />
                    </td>
                    <td className="py-1">
                      <DeskRuleToggle rule={r} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </main>
    </>
  );
}
