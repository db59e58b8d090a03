/**
 * Axis labels of the console's charts (the `/insights` charts): counts formatted compactly so a
 * tick never needs more room than the axis has, and the axis width computed from the longest
 * label the data can produce — "2400" on the scale desk reads "2.4k", never a clipped "!400".
 * Pure; no chart library imports.
 */

/**
 * A count as a short tick label: up to 999 as is, then thousands ("1k", "2.4k", "12k", "999k")
 * and millions ("1.5M"), one decimal below ten of a unit and none above. Negative counts keep
 * their sign; a non-finite value is "–".
 */
export function compactCount(n: number): string {
  if (!Number.isFinite(n)) return "–";
  const sign = n < 0 ? "-" : "";
  const a = Math.abs(n);
  const unit = (v: number, suffix: string) => {
    const digits = v < 10 ? 1 : 0;
    const text = v.toFixed(digits).replace(/\.0$/, "");
    return `${sign}${text}${suffix}`;
  };
  if (a < 1000) return `${sign}${Number.isInteger(a) ? a : a.toFixed(1)}`;
  if (a < 999_950) return unit(a / 1000, "k");
  return unit(a / 1_000_000, "M");
}

/**
 * The pixel width a vertical axis needs for labels up to `maxValue` formatted by `format`
 * (default `compactCount`) at `fontSize` px: the longest label of the largest "nice" tick at or
 * above `maxValue` (1, 2, 2.5, 5 × 10ⁿ), about 0.62 em per character, plus 12 px for the tick
 * line and padding; at least 28 px.
 */
export function axisWidth(maxValue: number, opts: { fontSize?: number; format?: (n: number) => string } = {}): number {
  const fontSize = opts.fontSize ?? 11;
  const format = opts.format ?? compactCount;
  const top = niceCeil(Math.max(0, maxValue));
  const longest = Math.max(format(top).length, format(maxValue).length, format(0).length);
  return Math.max(28, Math.ceil(longest * fontSize * 0.62 + 12));
}

/** The smallest of 1, 2, 2.5, 5 × 10ⁿ at or above `v` (0 for 0). */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v - 1e-9) return m * p;
  return 10 * p;
}
