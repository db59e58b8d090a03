"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/client/auth-client";

/** A registered passkey as the page lists it: id, the name its owner gave it, when it was added (ISO UTC). */
export type PasskeyRow = { id: string; name: string | null; createdAt: string | null };

/**
 * The person's passkeys (`rows`, read by the page) with "Add a passkey" and "Remove"; the calls are
 * better-auth's passkey plugin's, and the page is refreshed after each so the list is the server's.
 */
export function PasskeysPanel({ rows }: { rows: PasskeyRow[] }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const add = async () => {
    setBusy(true);
    setMessage(null);
    const res = await authClient.passkey.addPasskey({ name: name.trim() || undefined });
    setBusy(false);
    if (res?.error) {
      setMessage({ kind: "error", text: res.error.message || "The passkey was not registered." });
      return;
    }
    setName("");
    setMessage({ kind: "ok", text: "Passkey registered." });
    router.refresh();
  };

  const remove = async (id: string) => {
    setBusy(true);
    const res = await authClient.passkey.deletePasskey({ id });
    setBusy(false);
    setMessage(res.error ? { kind: "error", text: res.error.message || "The passkey was not removed." } : { kind: "ok", text: "Passkey removed." });
    router.refresh();
  };

  return (
    <section aria-labelledby="passkeys-h" className="mt-6">
      <h2 id="passkeys-h" className="text-base font-medium">
        Your passkeys
      </h2>
      {message && (
        <p role={message.kind === "error" ? "alert" : "status"} className={`mt-2 text-sm ${message.kind === "error" ? "text-red-800" : "text-green-800"}`}>
          {message.text}
        </p>
      )}
      {rows.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">You have no passkey yet.</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-200 rounded-md border border-slate-200" aria-label="Passkeys">
          {rows.map((p) => (
            <li key={p.id} className="flex items-center gap-3 px-3 py-2 text-sm">
              <span className="font-medium">{p.name || "Unnamed passkey"}</span>
              <span className="text-slate-600">{p.createdAt ? `added ${p.createdAt.slice(0, 10)}` : ""}</span>
              <button type="button" disabled={busy} onClick={() => remove(p.id)} className="ml-auto rounded-md border border-slate-300 px-2 py-1 text-slate-700 hover:bg-slate-50">
                Remove <span className="sr-only">{p.name || "passkey"}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-4 flex flex-wrap items-end gap-2">
        <div>
          <label htmlFor="passkey-name" className="block text-sm font-medium">
            Name (optional)
          </label>
          <input id="passkey-name" value={name} maxLength={60} onChange={(e) => setName(e.target.value)} className="mt-1 rounded-md border border-slate-300 px-3 py-1.5 text-sm" />
        </div>
        <button type="button" disabled={busy} onClick={add} className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-800 disabled:opacity-60">
          Add a passkey
        </button>
      </div>
    </section>
  );
}
