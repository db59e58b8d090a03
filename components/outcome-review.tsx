"use client";

import { useRef, useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import { OUTCOME_LABELS, type OutcomeLabel, type OutcomeLabelView, type OutcomeRecord } from "@/lib/outcomes/outcome";
import { outcomeLabelBodySchema } from "@/lib/outcomes/schema";
import { OutcomeFacts } from "./outcome-section";
import { focusElement, useShortcut } from "./keyboard-shortcuts";
import { toast } from "./toaster";

/** One run of the review queue as the page hands it over. */
export interface ReviewItem {
  runId: string;
  ticketId: string;
  subject: string;
  editor: { id: string; name: string } | null;
  record: OutcomeRecord;
  label: OutcomeLabelView | null;
}

const KEY_OF: Record<OutcomeLabel, string> = { better: "1 / b", same: "2 / s", worse: "3 / w" };

/** One run to judge: the record, the computed suggestion, and the label form (choice, reason, save). */
function ReviewCard({ item, index, current, onFocus, choice, setChoice, onLeave, onSaved }: {
  item: ReviewItem;
  index: number;
  current: boolean;
  onFocus: () => void;
  choice: OutcomeLabel | null;
  setChoice: (l: OutcomeLabel) => void;
  /** Moves focus out of this run's form onto its row (at once, before the save answers); returns where focus went. */
  onLeave: () => Element | null;
  onSaved: (label: OutcomeLabelView) => void;
}) {
  const [reason, setReason] = useState(item.label?.reason ?? "");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const reasonRef = useRef<HTMLInputElement>(null);
  const id = `review-${item.runId}`;
  async function save(e: React.FormEvent) {
    e.preventDefault();
    if (saving) return;
    const parsed = outcomeLabelBodySchema.safeParse({ label: choice, reason });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? "Choose a label and say why.");
      return;
    }
    setSaving(true);
    // Focus leaves the reason now, not when the save answers: keys pressed meanwhile (j, 1) act on
    // the queue and never land in a reason already sent.
    const movedTo = onLeave();
    try {
      const res = await apiFetch<{ outcome: { label: OutcomeLabelView } }>(`/api/runs/${item.runId}/outcome-label`, { method: "PUT", body: parsed.data });
      setError(null);
      onSaved(res.outcome.label);
      toast(`Labelled ${res.outcome.label.label}.`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "Could not save the label.");
      // back to the reason to correct it — unless the person has moved on meanwhile (then the
      // error stays on this run's card, announced)
      if (movedTo && document.activeElement === movedTo) reasonRef.current?.focus();
    } finally {
      setSaving(false);
    }
  }
  return (
    <li
      id={id}
      aria-current={current ? "true" : undefined}
      onFocusCapture={onFocus}
      className={`rounded-lg border bg-white p-4 ${current ? "border-blue-600 ring-2 ring-blue-200" : "border-slate-200"}`}
      data-testid="review-item"
    >
      <div className="flex flex-wrap items-baseline gap-2">
        <h2 id={`${id}-h`} tabIndex={-1} className="font-semibold">
          <a href={`/runs/${item.runId}`} className="text-blue-800 underline">
            Ticket #{item.ticketId} · {item.subject}
          </a>
        </h2>
        <span className="text-xs text-slate-600">
          {index + 1}. edited by {item.editor?.name ?? "someone"} · {item.label ? `labelled ${item.label.label} by ${item.label.by.name}` : "not labelled"}
        </span>
      </div>
      <div className="mt-2">
        <OutcomeFacts record={item.record} />
      </div>
      <form onSubmit={save} noValidate className="mt-3 space-y-2 border-t border-slate-100 pt-3">
        <fieldset aria-describedby={error ? `${id}-error` : undefined}>
          <legend className="text-sm font-medium">Did the edit help? {item.record.suggestion.label ? <span className="font-normal text-slate-600">(the signals suggest {item.record.suggestion.label})</span> : null}</legend>
          <div className="mt-1 flex flex-wrap gap-3 text-sm">
            {OUTCOME_LABELS.map((l) => (
              <label key={l} className="flex items-center gap-1">
                <input type="radio" name={`${id}-label`} value={l} checked={choice === l} onChange={() => setChoice(l)} />
                {l[0].toUpperCase() + l.slice(1)} <kbd className="text-xs text-slate-500">{KEY_OF[l]}</kbd>
              </label>
            ))}
          </div>
        </fieldset>
        <label htmlFor={`${id}-reason`} className="block text-xs text-slate-700">
          Reason (Enter saves)
        </label>
        <input
          ref={reasonRef}
          id={`${id}-reason`}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          aria-invalid={!!error}
          aria-describedby={error ? `${id}-error` : undefined}
          className="w-full rounded-md border border-slate-300 px-2 py-1 text-sm"
        />
        {error && (
          <p id={`${id}-error`} role="alert" className="text-sm text-red-700">
            {error}
          </p>
        )}
        <button type="submit" disabled={saving} className="rounded-md bg-blue-700 px-3 py-1 text-sm font-medium text-white disabled:opacity-50">
          Save label
        </button>
      </form>
    </li>
  );
}

/**
 * The review queue's list with its keyboard: `j`/`k` move the current run, `1`/`b`, `2`/`s`,
 * `3`/`w` choose better / same / worse for it and put the focus in its reason, `Enter` there saves
 * and moves the focus at once out of the reason onto the run's row, so "3, reason, Enter, j, 1"
 * labels this run and chooses for the next (lib/keyboard/shortcuts.ts, scope "review").
 */
export function OutcomeReview({ items: initial }: { items: ReviewItem[] }) {
  const [items, setItems] = useState(initial);
  const [current, setCurrentState] = useState(0);
  // the current run as keys see it: a key pressed before the next render acts on the run just moved to
  const currentRef = useRef(0);
  const setCurrent = (n: number) => {
    currentRef.current = n;
    setCurrentState(n);
  };
  const [choices, setChoices] = useState<Record<string, OutcomeLabel | null>>(() => Object.fromEntries(initial.map((i) => [i.runId, i.label?.label ?? null])));
  const move = (by: number) => {
    if (!items.length) return;
    const next = Math.min(items.length - 1, Math.max(0, currentRef.current + by));
    setCurrent(next);
    focusElement(document.getElementById(`review-${items[next].runId}-h`));
  };
  const choose = (label: OutcomeLabel) => {
    const item = items[currentRef.current];
    if (!item) return;
    setChoices((c) => ({ ...c, [item.runId]: label }));
    focusElement(document.getElementById(`review-${item.runId}-reason`));
  };
  // j / k: the queue's own keys move the current run here too (one key, one meaning)
  useShortcut("queueNext", () => move(1));
  useShortcut("queuePrevious", () => move(-1));
  useShortcut("labelBetter", () => choose("better"));
  useShortcut("labelBetterLetter", () => choose("better"));
  useShortcut("labelSame", () => choose("same"));
  useShortcut("labelSameLetter", () => choose("same"));
  useShortcut("labelWorse", () => choose("worse"));
  useShortcut("labelWorseLetter", () => choose("worse"));
  if (!items.length) return <p className="mt-6 text-sm text-slate-600">No edited run has executed yet: nothing to judge.</p>;
  return (
    <ol aria-label="Runs to judge" className="mt-4 space-y-4">
      {items.map((item, i) => (
        <ReviewCard
          key={item.runId}
          item={item}
          index={i}
          current={i === current}
          onFocus={() => setCurrent(i)}
          choice={choices[item.runId] ?? null}
          setChoice={(l) => setChoices((c) => ({ ...c, [item.runId]: l }))}
          onLeave={() => {
            // Saving moves the focus out of the reason onto this run's row (its heading, which
            // says "labelled …" once saved): keys pressed next act on the queue — j goes on to the
            // next run, never skipping one — and never retype a reason already sent.
            setCurrent(i);
            focusElement(document.getElementById(`review-${item.runId}-h`));
            return document.activeElement;
          }}
          onSaved={(label) => setItems((all) => all.map((x) => (x.runId === item.runId ? { ...x, label } : x)))}
        />
      ))}
    </ol>
  );
}
