import { markHiddenCharacters } from "@/lib/text/hidden-characters";

/**
 * Text exactly as stored, with every hidden character (zero-width, bidi control, BOM, no-break
 * space…) shown as a visible marker such as "RLO" instead of being applied or swallowed: an
 * operator reviews every character. Markers carry the code point as their title.
 */
export function VisibleText({ text, className }: { text: string; className?: string }) {
  const pieces = markHiddenCharacters(text);
  // A 300-character token or a long URL breaks anywhere rather than widen the page (and it counts
  // so in the min-content width grid and flex columns size by).
  const cls = `[overflow-wrap:anywhere] ${className ?? ""}`.trim();
  if (pieces.length === 1 && pieces[0].kind === "text") return <span className={cls}>{text}</span>;
  return (
    <span className={cls}>
      {pieces.map((p, i) =>
        p.kind === "text" ? (
          <span key={i}>{p.text}</span>
        ) : (
          <abbr
            key={i}
            title={`Hidden character ${p.codePoint}`}
            data-hidden-character={p.name}
            className="mx-px rounded border border-amber-400 bg-amber-100 px-0.5 align-baseline font-mono text-[10px] font-semibold text-amber-900 no-underline"
          >
            {p.name}
          </abbr>
        ),
      )}
    </span>
  );
}
