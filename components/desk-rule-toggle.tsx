"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { DeskRuleView } from "@/lib/desk-rules/view";
import { CellError, quietButtonClass } from "./admin/form-bits";
import { toast } from "./toaster";

/** Disables or enables a desk rule from the list: a save of the next version with only `enabled` changed. */
export function DeskRuleToggle({ rule }: { rule: DeskRuleView }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const verb = rule.enabled ? "Disable" : "Enable";
  return (
    <>
      <button
        type="button"
        className={quietButtonClass}
        disabled={pending}
        aria-label={`${verb} rule: ${rule.description}`}
        onClick={async () => {
          setPending(true);
          setError(null);
          try {
            await apiFetch(`/api/desk-rules/${rule.id}`, {
              method: "PUT",
              body: { baseVersion: rule.version, severity: rule.severity, description: rule.description, rule: rule.rule, enabled: !rule.enabled, note: `${verb}d from the rule list` },
            });
            toast(`${verb}d the rule.`);
            router.refresh();
          } catch (e) {
            setError(e instanceof ApiError ? e.message : "Nothing was saved.");
          } finally {
            setPending(false);
          }
        }}
      >
        {verb}
      </button>
      <CellError message={error} />
    </>
  );
}
