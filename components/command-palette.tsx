"use client";

import { useRouter } from "next/navigation";
import { useId, useLayoutEffect, useRef, useState } from "react";
import { describeKeys, NOT_IN_PALETTE, SHORTCUTS, type ShortcutId } from "@/lib/keyboard/shortcuts";
import { trapTab, useOpenShortcutHelp, useShortcut, useShortcutActions } from "./keyboard-shortcuts";

/** One entry of the palette: a page to go to, an action of the page on screen, or "open ticket #N". */
interface Command {
  key: string;
  label: string;
  group: "Pages" | "Actions" | "Search";
  /** The action's keys as the shortcut list shows them (lib/keyboard/shortcuts.ts), for actions. */
  keys?: string;
  run: () => void;
}

/**
 * The command palette (Ctrl+K or ⌘K): every page the viewer's header links to, every action the
 * page on screen handles (the same handlers as its keys, each row showing its keys: approve,
 * reject, take, move a step…; a step's actions act on the step focus was in), and
 * "Open ticket #…" for a typed number (the queue's search). Type to filter, ↑/↓ to choose, Enter
 * to run, Esc to close (focus returns where it was).
 */
export function CommandPalette({ links }: { links: { href: string; label: string }[] }) {
  const router = useRouter();
  const actions = useShortcutActions();
  const openHelp = useOpenShortcutHelp();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const [available, setAvailable] = useState<ShortcutId[]>([]);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  /** Whether the palette is open, for the handlers (set at once, not after React renders). */
  const openRef = useRef(false);
  const listId = useId();
  const mac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

  useShortcut("palette", () => {
    returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setAvailable(actions.available());
    setText("");
    setActive(0);
    openRef.current = true;
    // closed a moment ago and still in the page (its close event not yet handled): shown again
    if (dialogRef.current && !dialogRef.current.open) dialogRef.current.showModal();
    setOpen(true);
  });
  useLayoutEffect(() => {
    if (open && dialogRef.current && !dialogRef.current.open) dialogRef.current.showModal();
  }, [open]);

  // Closing is done here, at once: the dialog's own `close` event comes a task later, and a
  // Ctrl+K pressed in between must open the palette again, not be undone by that late event.
  const close = () => {
    if (!openRef.current) return;
    openRef.current = false;
    if (dialogRef.current?.open) dialogRef.current.close();
    setOpen(false);
    returnTo.current?.focus();
  };
  /** The newest run of the ticket, opened at once; the queue filtered to the ticket when there is none or several. */
  const openTicket = async (t: string) => {
    try {
      const res = await fetch(`/api/runs?q=${encodeURIComponent(t)}&limit=20`, { headers: { accept: "application/json" } });
      const runs = res.ok ? ((await res.json()) as { runs: { id: string; ticketId: string }[] }).runs : [];
      const exact = runs.find((r) => r.ticketId === t);
      router.push(exact ? `/runs/${exact.id}` : `/runs?status=all&q=${encodeURIComponent(t)}`);
    } catch {
      router.push(`/runs?status=all&q=${encodeURIComponent(t)}`);
    }
  };
  const runCommand = (c: Command | undefined) => {
    if (!c) return;
    close();
    // the handler runs once the dialog is gone, so it may open its own dialog or move focus
    setTimeout(c.run, 0);
  };
  const q = text.trim().toLowerCase();
  const ticket = /^#?(\d{3,})$/.exec(text.trim())?.[1];
  const commands: Command[] = [
    ...(ticket ? [{ key: `ticket-${ticket}`, label: `Open ticket #${ticket}`, group: "Search" as const, run: () => void openTicket(ticket) }] : []),
    ...links.map((l) => ({ key: `page-${l.href}`, label: `Go to ${l.label}`, group: "Pages" as const, run: () => router.push(l.href) })),
    ...SHORTCUTS.filter((s) => !NOT_IN_PALETTE.has(s.id) && (s.id === "help" || s.id === "goQueue" || available.includes(s.id))).map((s) => ({
      key: `action-${s.id}`,
      label: s.description,
      group: "Actions" as const,
      keys: describeKeys(s, mac),
      run: () => (s.id === "help" ? openHelp() : s.id === "goQueue" ? router.push("/runs") : actions.run(s.id)),
    })),
  ].filter((c) => c.group === "Search" || !q || c.label.toLowerCase().includes(q));
  const current = Math.min(active, Math.max(0, commands.length - 1));

  if (!open) return null;
  return (
    <dialog
      ref={dialogRef}
      aria-label="Command palette"
      onKeyDown={trapTab}
      onClose={(e) => {
        if (e.currentTarget === dialogRef.current && !e.currentTarget.open) close();
      }}
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
      className="m-auto mt-[10vh] w-[min(34rem,calc(100vw-1rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/60"
    >
      <input
        autoFocus
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-activedescendant={commands[current] ? `${listId}-${current}` : undefined}
        aria-label="Type a command, a page or a ticket number"
        placeholder="Type a command, a page or a ticket number"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setActive((n) => Math.min(commands.length - 1, n + 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((n) => Math.max(0, n - 1));
          } else if (e.key === "Enter") {
            e.preventDefault();
            runCommand(commands[current]);
          }
        }}
        className="w-full rounded-t-lg border-b border-slate-200 bg-white px-4 py-3 text-base outline-none"
      />
      <ul id={listId} role="listbox" aria-label="Commands" className="max-h-[60vh] overflow-y-auto py-1">
        {commands.length === 0 && <li className="px-4 py-3 text-sm text-slate-600">Nothing matches “{text}”.</li>}
        {commands.map((c, i) => (
          <li
            key={c.key}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === current}
            onMouseEnter={() => setActive(i)}
            onClick={() => runCommand(c)}
            className={`flex cursor-pointer items-baseline gap-3 px-4 py-2 text-sm ${i === current ? "bg-blue-50 text-blue-950" : ""}`}
          >
            <span className="w-16 shrink-0 text-xs text-slate-600">{c.group}</span>
            <span className="min-w-0 flex-1 break-words">{c.label}</span>
            {c.keys && (
              <kbd className="shrink-0 rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs text-slate-800">
                {c.keys}
              </kbd>
            )}
          </li>
        ))}
      </ul>
    </dialog>
  );
}
