import type { Metadata } from "next";
import { DeskRuleForm } from "@/components/desk-rule-form";
import { prefillFromEdit, readEditRef } from "@/lib/desk-rules/prefill";
import { deskRuleFormOptions } from "@/lib/server/desk-rules/list-desk-rules";
import { pageRefusal, requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "New desk rule" };
export const dynamic = "force-dynamic";

/**
 * `/desk-rules/new?edit=…`: the one flow from a recurring edit on /insights — a desk rule the
 * validator applies (the form, prefilled from the edit), a gate-policy rule (the admin's editor,
 * prefilled) or guidance for the agent (the form's "guidance" kind). Supervisors and admins.
 */
export default async function NewDeskRulePage({ searchParams }: { searchParams: Promise<{ edit?: string }> }) {
  const viewer = await requirePageViewer("/desk-rules/new");
  await requirePageRole(viewer, ["supervisor", "admin"], "view /desk-rules/new");
  const { edit: raw } = await searchParams;
  const edit = readEditRef(raw);
  const prefill = edit ? prefillFromEdit(edit) : null;
  let options: Awaited<ReturnType<typeof deskRuleFormOptions>>;
  try {
    options = await deskRuleFormOptions(viewer);
  } catch (e) {
    pageRefusal(e);
  }
  const gate = edit ? `/admin/gate-policy?${new URLSearchParams({ tool: edit.tool, ...(edit.desks[0] ? { desk: edit.desks[0] } : {}), note: `From a recurring edit: ${edit.tool} ${edit.pattern}` })}` : null;
  return (
    <>
      <main className="mx-auto max-w-5xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">New desk rule</h1>
        {edit ? (
          <section aria-label="The recurring edit" className="mt-2 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm">
            From the recurring edit <code className="text-xs">{edit.tool}</code> · <strong>{edit.pattern}</strong>
            {edit.runs !== undefined && ` (${edit.runs} runs)`}
            {edit.desks.length > 0 && ` on ${edit.desks.join(", ")}`}. Choose what it becomes:
            <ul className="mt-1 list-disc pl-5">
              <li>a desk rule the validator applies (below, prefilled from the edit: a warning to start with);</li>
              <li>
                guidance the agent reads at <code>GET /api/v1/guidance</code>, with the edits as worked examples: rule kind &ldquo;Guidance for the agent only&rdquo;;
              </li>
              <li>
                a gate-policy rule (who approves the tool, an admin&apos;s decision):{" "}
                <a className="text-blue-800 underline" href={gate!}>
                  open the gate-policy editor with a rule for {edit.tool}
                </a>
                {viewer.role !== "admin" && " (an admin saves it)"}.
              </li>
            </ul>
          </section>
        ) : (
          <p className="mt-1 text-sm text-slate-600">A rule the validator applies to every plan of a desk, or guidance for the agent.</p>
        )}
        <DeskRuleForm desks={options.desks} tools={options.tools} prefill={prefill} />
      </main>
    </>
  );
}
