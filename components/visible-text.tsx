import { markHiddenCharacters } from "@/lib/text/hidden-characters";

/**
 * Text exactly as stored, with every hidden character (zero-width, bidi control, BOM, no-break
 * space…) shown as a visible marker such as "RLO" instead of being applied or swallowed: an
 * operator reviews every character. Markers carry the code point as their title.
 */
export function VisibleText({ text, className }: { text: string; className?: string }) {
  const pieces = markHiddenCharacters(text);
  if (pieces.length === 1 && pieces[0].kind === "text") return <span className={className}>{text}</span>;
  return (
    <span className={className}>
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
