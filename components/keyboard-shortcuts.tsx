"use client";

import { usePathname, useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { createShortcutMatcher, describeChord, keyBelongsToField, SHORTCUTS, type KeyLike, type ShortcutId, type ShortcutScope } from "@/lib/keyboard/shortcuts";

type Handler = () => void;
interface Registry {
  register(id: ShortcutId, handler: { current: Handler }): () => void;
  openHelp(): void;
  /** The shortcuts a mounted component handles right now (the command palette's actions). */
  available(): ShortcutId[];
  /** Runs the latest mounted handler of `id` (as its keys would). */
  run(id: ShortcutId): void;
}
const ShortcutContext = createContext<Registry | null>(null);

/**
 * Moves focus to `el` (a heading, a region), making it focusable with tabindex=-1 if it is not,
 * so a screen reader reads where the person now is (focus after every action).
 */
export function focusElement(el: Element | null | undefined): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (!el.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) el.setAttribute("tabindex", "-1");
  el.focus();
  return document.activeElement === el;
}

/**
 * Keeps Tab and Shift+Tab inside a modal dialog (a `keydown` handler for the dialog): from the
 * last control to the first and back, so focus never leaves for the browser's own controls.
 */
export function trapTab(e: React.KeyboardEvent<HTMLElement>) {
  if (e.key !== "Tab") return;
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>("a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])")];
  if (items.length === 0) return;
  const first = items[0];
  const last = items[items.length - 1];
  const at = document.activeElement;
  if (e.shiftKey && (at === first || !e.currentTarget.contains(at))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || !e.currentTarget.contains(at))) {
    e.preventDefault();
    first.focus();
  }
}

/** How long after `focusHeading` a page that is still settling may take focus back to its target, in ms. */
const SETTLE_MS = 10_000;
/** Ends the watch of the latest `focusHeading` call: a newer call's target wins over an older one's. */
let endSettling: (() => void) | null = null;

/**
 * Focuses the first element found by id in `ids`, else the page's main heading (after the next
 * paint). The page may still be settling (a refetch re-renders and removes the focused panel): on
 * every change of the page for SETTLE_MS after, if focus fell back to the body (or to an element
 * no longer in the page), it is put on the first of `ids` that exists then; and if it rests on the
 * main heading only because none of `ids` existed a moment ago, it moves on to the first of them
 * that appears — driven by the page's own changes, never by a guess of how long a render takes.
 * Focus a person moved anywhere else stays. A newer call ends the older one's watch (the latest
 * action's target wins: Take, then Suggest a step, ends on the form, not back on the owner line).
 */
export function focusHeading(...ids: string[]) {
  endSettling?.();
  const wanted = () => ids.map((id) => document.getElementById(id)).find((el) => el?.isConnected) ?? null;
  const fallback = () => document.querySelector("main h1");
  const lost = () => !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
  /** Focus the first of `ids`, else the main heading — always on the first try, later only when focus was lost. */
  const attempt = (first: boolean) => {
    if (focusElement(wanted())) return;
    if (first || lost()) focusElement(fallback());
  };
  requestAnimationFrame(() => attempt(true));
  const observer = new MutationObserver(() => {
    const onFallback = document.activeElement !== null && document.activeElement === fallback();
    if (lost() || (onFallback && wanted())) attempt(false);
  });
  observer.observe(document.body, { childList: true, subtree: true });
  const stop = setTimeout(() => observer.disconnect(), SETTLE_MS);
  const end = () => {
    observer.disconnect();
    clearTimeout(stop);
    if (endSettling === end) endSettling = null;
  };
  endSettling = end;
}

/**
 * A DOM key event as the key map reads it (lib/keyboard/shortcuts.ts), its target being the
 * element focus is really in: inside a shadow root the event's own target is only the host.
 */
export function keyLikeOf(e: KeyboardEvent): KeyLike {
  const inner = typeof e.composedPath === "function" ? e.composedPath()[0] : e.target;
  const el = inner instanceof Element ? inner : e.target instanceof Element ? e.target : null;
  const target = el as (Element & { isContentEditable?: boolean }) | null;
  return { key: e.key, code: e.code, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, shiftKey: e.shiftKey, isComposing: e.isComposing, target };
}

/**
 * True when a document-wide key listener must leave `e` alone: someone else handled it, a modal
 * dialog is open, or it is a key typed into a text field (the one rule, `keyBelongsToField`).
 * Every document key listener of the console asks this first.
 */
export function keyIsNotForShortcuts(e: KeyboardEvent): boolean {
  return e.defaultPrevented || !!document.querySelector("dialog[open]") || keyBelongsToField(keyLikeOf(e));
}

/**
 * Runs `handler` when the shortcut `id` is pressed (lib/keyboard/shortcuts.ts), while the
 * component is mounted and `enabled`. The latest mounted handler of an id wins.
 */
export function useShortcut(id: ShortcutId, handler: Handler, enabled = true) {
  const registry = useContext(ShortcutContext);
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => {
    if (!registry || !enabled) return;
    return registry.register(id, ref);
  }, [registry, id, enabled]);
}

/** The shortcut registry's actions for the command palette: what is available now, and running one. */
export function useShortcutActions(): { available: () => ShortcutId[]; run: (id: ShortcutId) => void } {
  const registry = useContext(ShortcutContext);
  return { available: () => registry?.available() ?? [], run: (id) => registry?.run(id) };
}

/** Opens the shortcut list (for a visible "Keyboard shortcuts" button). */
export function useOpenShortcutHelp(): () => void {
  const registry = useContext(ShortcutContext);
  return () => registry?.openHelp();
}

const SCOPE_TITLE: Record<ShortcutScope, string> = {
  global: "Everywhere",
  queue: "Queue",
  run: "Run",
  edit: "Editing a plan (also inside fields)",
  review: "Judging outcomes (/outcomes/review)",
};

/**
 * The console's keyboard layer: one keydown listener that matches keys to the key map and calls
 * the handler a mounted component registered (`useShortcut`); `?` opens the list of all
 * shortcuts and `g q` goes to the queue; a "Skip to main content" link first in the page; and
 * after a client-side navigation, focus on the new page's main heading.
 */
export function KeyboardShortcuts({ children }: { children: ReactNode }) {
  const router = useRouter();
  const pathname = usePathname();
  const handlers = useRef(new Map<ShortcutId, { current: Handler }[]>());
  const [helpOpen, setHelpOpen] = useState(false);
  const helpOpenRef = useRef(false);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);

  // The ids with a handler now, on `html[data-shortcuts]` (space-separated): a page streamed in
  // after the frame hydrates registers its shortcuts later, and a test waits for the one it presses.
  const publish = () => {
    document.documentElement.dataset.shortcuts = [...handlers.current].filter(([, list]) => list.length > 0).map(([id]) => id).join(" ");
  };
  const [registry] = useState<Registry>(() => ({
    register(id, handler) {
      const list = handlers.current.get(id) ?? [];
      handlers.current.set(id, [...list, handler]);
      publish();
      return () => {
        handlers.current.set(id, (handlers.current.get(id) ?? []).filter((h) => h !== handler));
        publish();
      };
    },
    openHelp() {
      returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      helpOpenRef.current = true;
      // closed a moment ago and still in the page (its close event not yet handled): shown again
      if (dialogRef.current && !dialogRef.current.open) dialogRef.current.showModal();
      setHelpOpen(true);
    },
    available() {
      return [...handlers.current].filter(([, list]) => list.length > 0).map(([id]) => id);
    },
    run(id) {
      handlers.current.get(id)?.at(-1)?.current();
    },
  }));

  useEffect(() => {
    const matcher = createShortcutMatcher(SHORTCUTS);
    const builtIn = (id: ShortcutId) => id === "help" || id === "goQueue";
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      // A dialog that is open has the keyboard; so has the shortcut list between `?` and its first
      // render. A dialog already closed whose close event is still to come has it no more.
      if (document.querySelector("dialog[open]") || (helpOpenRef.current && !dialogRef.current)) return;
      // keys typed in a text field are the field's (keyBelongsToField, applied by the matcher per shortcut)
      const result = matcher.press(keyLikeOf(e), performance.now(), (s) => builtIn(s.id) || (handlers.current.get(s.id)?.length ?? 0) > 0);
      if (result.kind !== "shortcut") return;
      e.preventDefault();
      const id = result.shortcut.id;
      if (id === "help") registry.openHelp();
      else if (id === "goQueue") router.push("/runs");
      else handlers.current.get(id)?.at(-1)?.current();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [registry, router]);

  useLayoutEffect(() => {
    const d = dialogRef.current;
    if (helpOpen && d && !d.open) d.showModal();
  }, [helpOpen]);

  // After a client-side navigation focus goes to the new page's main heading, not the body.
  // A route skeleton (loading.tsx) may hold the heading first: when the page replaces it and
  // focus fell to the body, the page's own heading gets it.
  const firstPath = useRef(pathname);
  useEffect(() => {
    if (pathname === firstPath.current) return;
    firstPath.current = pathname;
    focusHeading();
    if (!document.querySelector("[data-route-skeleton]")) return;
    const observer = new MutationObserver(() => {
      if (document.querySelector("[data-route-skeleton]")) return;
      observer.disconnect();
      const at = document.activeElement;
      if (!at || at === document.body) focusElement(document.querySelector("main h1"));
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const stop = setTimeout(() => observer.disconnect(), 60_000);
    return () => {
      observer.disconnect();
      clearTimeout(stop);
    };
  }, [pathname]);

  // Closing is done here, at once (Esc, the Close button): the dialog's own `close` event comes a
  // task later, and a key pressed in between (Esc, then Ctrl+K at once) must find the list gone.
  const closeHelp = () => {
    if (!helpOpenRef.current) return;
    helpOpenRef.current = false;
    if (dialogRef.current?.open) dialogRef.current.close();
    setHelpOpen(false);
    returnTo.current?.focus();
  };
  const mac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
  const scopes = (Object.keys(SCOPE_TITLE) as ShortcutScope[]).map((scope) => ({ scope, items: SHORTCUTS.filter((s) => s.scope === scope) }));

  return (
    <ShortcutContext.Provider value={registry}>
      <nav aria-label="Skip link">
      <a
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          const main = document.querySelector("main");
          if (!focusElement(main?.querySelector("h1"))) focusElement(main);
        }}
        className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-blue-800 shadow focus:not-sr-only focus:fixed focus:left-3 focus:top-3"
      >
        Skip to main content
      </a>
      </nav>
      {children}
      {helpOpen && (
        <dialog
          ref={dialogRef}
          aria-labelledby="shortcuts-h"
          onKeyDown={trapTab}
          onClose={(e) => {
            if (e.currentTarget === dialogRef.current && !e.currentTarget.open) closeHelp();
          }}
          onCancel={(e) => {
            e.preventDefault();
            closeHelp();
          }}
          className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-black/60"
        >
          <div className="flex items-start gap-3">
            <h2 id="shortcuts-h" className="text-lg font-semibold">
              Keyboard shortcuts
            </h2>
            <button type="button" onClick={closeHelp} className="ml-auto rounded-md border border-slate-300 px-2.5 py-1 text-sm" autoFocus>
              Close
            </button>
          </div>
          <p className="mt-1 text-sm text-slate-600">Letters never fire while you type in a field; Esc closes this list.</p>
          {scopes.map(({ scope, items }) => (
            <section key={scope} aria-labelledby={`keys-${scope}`} className="mt-4">
              <h3 id={`keys-${scope}`} className="text-sm font-semibold text-slate-800">
                {SCOPE_TITLE[scope]}
              </h3>
              <dl className="mt-1 grid grid-cols-[9rem_1fr] gap-x-3 gap-y-1 text-sm">
                {items.map((s) => (
                  <div key={s.id} className="contents">
                    <dt>
                      {s.keys.map((k, i) => (
                        <span key={i}>
                          {i > 0 && <span className="px-1 text-slate-600">then</span>}
                          <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">{describeChord(k, mac)}</kbd>
                        </span>
                      ))}
                    </dt>
                    <dd className="text-slate-800">{s.description}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        </dialog>
      )}
    </ShortcutContext.Provider>
  );
}
