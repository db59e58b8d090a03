import Link from "next/link";

/** The parts of the admin area, one tab each. */
export type AdminArea = "users" | "desks" | "agents" | "integrations" | "tools" | "gate-policy" | "webhooks" | "changes";

/** Sub-navigation of the admin area. */
export function AdminNav({ current }: { current: AdminArea }) {
  const tab = (key: AdminArea, href: string, label: string) => (
    <Link
      href={href}
      aria-current={current === key ? "page" : undefined}
      className={`rounded-md px-3 py-1.5 text-sm ${current === key ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
    >
      {label}
    </Link>
  );
  return (
    <nav aria-label="Admin" className="mt-3 flex flex-wrap gap-2">
      {tab("users", "/admin/users", "Users and grants")}
      {tab("desks", "/admin/desks", "Desks")}
      {tab("agents", "/admin/agents", "Agents and API keys")}
      {tab("integrations", "/admin/integrations", "Integration keys")}
      {tab("tools", "/admin/tools", "Tool catalog")}
      {tab("gate-policy", "/admin/gate-policy", "Gate policy")}
      {tab("webhooks", "/admin/webhooks", "Webhooks")}
      {tab("changes", "/admin/changes", "Changes")}
    </nav>
  );
}
