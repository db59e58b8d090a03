/**
 * A small form's Save and Cancel buttons: Save submits the form and reads "Saving…" while
 * `pending` (and is disabled then); Cancel calls `onCancel`. Used by the task's revision and
 * contract forms.
 */
export function SaveCancel({ pending, saveLabel, onCancel }: { pending: boolean; saveLabel: string; onCancel: () => void }) {
  return (
    <div className="flex gap-2">
      <button type="submit" disabled={pending} className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white disabled:opacity-60">
        {pending ? "Saving…" : saveLabel}
      </button>
      <button type="button" onClick={onCancel} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm">
        Cancel
      </button>
    </div>
  );
}
