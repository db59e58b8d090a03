/**
 * "1,234 / 2,000 characters" under a limited text field; red once over the limit (the save is
 * then refused with the field's own message). Give the field `aria-describedby={id}`.
 * ("counters on limited text fields").
 */
export function CharacterCount({ id, length, max }: { id: string; length: number; max: number }) {
  return (
    <p id={id} className={`mt-1 text-xs ${length > max ? "font-medium text-red-700" : "text-slate-500"}`} data-testid="character-count">
      {length.toLocaleString("en-US")} / {max.toLocaleString("en-US")} characters
    </p>
  );
}
