/** The diff of two argument trees leaf by leaf, with the semantics of RFC 8785 canonical JSON (docs/design.md §4), and applying such a diff. See ./plan-diff.ts. */
import canonicalize from "canonicalize";
import { type Money } from "../money/format-money";
import { type FieldChange, type PathSegment, PlanDiffError } from "./diff-schema";

// ---------------------------------------------------------------------------------------------
// Internals: leaf diff (semantics of RFC 8785 canonical JSON)
// ---------------------------------------------------------------------------------------------

/** Marker for "no value here" (absent key / index beyond the array's end). */
export const ABSENT: unique symbol = Symbol("absent");
/** A value, or ABSENT for a property or element that is not there (distinct from `null`). */
export type Maybe = unknown | typeof ABSENT;

/** True for a non-null, non-array object (a JSON object). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return (
    v !== null &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    typeof (v as { toJSON?: unknown }).toJSON !== "function"
  );
}

/** Property value as canonical JSON sees it: undefined / symbol / function = absent. */
export function propValue(obj: Record<string, unknown>, key: string): Maybe {
  if (!Object.prototype.hasOwnProperty.call(obj, key)) return ABSENT;
  const v = obj[key];
  return v === undefined || typeof v === "symbol" || typeof v === "function" ? ABSENT : v;
}

/** Array element as canonical JSON sees it: undefined / symbol = null; beyond the end = absent. */
export function elemValue(arr: unknown[], i: number): Maybe {
  if (i >= arr.length) return ABSENT;
  const v = arr[i];
  return v === undefined || typeof v === "symbol" ? null : v;
}

/** RFC 8785 canonical JSON of `v` (undefined for a value canonical JSON cannot carry). */
export function canon(v: unknown): string | undefined {
  try {
    return canonicalize(v);
  } catch {
    return undefined;
  }
}

/** Whether two leaves are equal as the digest sees them (canonical JSON). */
export function leafEqual(b: unknown, a: unknown): boolean {
  if (b === a) return true;
  const cb = canon(b);
  return cb !== undefined && cb === canon(a);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Renders segments as a display path: `args.items[2].sku`, `args["odd key"]`. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (IDENT.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** One field change at `segments` (`before`/`after` omitted when ABSENT). */
export function field(segments: PathSegment[], kind: FieldChange["kind"], before: Maybe, after: Maybe): FieldChange {
  const f: FieldChange = { path: formatPath(segments), segments: [...segments], kind };
  if (before !== ABSENT) f.before = clone(before);
  if (after !== ABSENT) f.after = clone(after);
  return f;
}

/** Appends to `out` every changed leaf between `b` and `a` below `segs` (money `{minor, currency}` is one leaf). */
export function walk(b: unknown, a: unknown, segs: PathSegment[], out: FieldChange[]): void {
  // Money is one value ({minor, currency}): a change is one field with both amounts, so people
  // read "$10.00 → $1,489.00", never "amount.minor 1000 → 148900" (issue 14).
  if (isMoneyLike(b) && isMoneyLike(a)) {
    if (!leafEqual(b, a)) out.push(field(segs, "changed", b, a));
    return;
  }
  if (isPlainObject(b) && isPlainObject(a)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.prototype.hasOwnProperty.call(a, k))];
    for (const k of keys) {
      const bv = propValue(b, k);
      const av = propValue(a, k);
      if (bv === ABSENT && av === ABSENT) continue;
      if (bv === ABSENT) out.push(field([...segs, k], "added", ABSENT, av));
      else if (av === ABSENT) out.push(field([...segs, k], "removed", bv, ABSENT));
      else walk(bv, av, [...segs, k], out);
    }
    return;
  }
  if (Array.isArray(b) && Array.isArray(a)) {
    const len = Math.max(a.length, b.length);
    for (let i = 0; i < len; i++) {
      const bv = elemValue(b, i);
      const av = elemValue(a, i);
      if (bv === ABSENT) out.push(field([...segs, i], "added", ABSENT, av));
      else if (av === ABSENT) out.push(field([...segs, i], "removed", bv, ABSENT));
      else walk(bv, av, [...segs, i], out);
    }
    return;
  }
  if (!leafEqual(b, a)) out.push(field(segs, "changed", b, a));
}

/** Reads the value at `segs` (relative to a root) with canonical-JSON semantics. */
export function getAt(root: unknown, segs: readonly PathSegment[]): Maybe {
  let cur: Maybe = root;
  for (const s of segs) {
    if (typeof s === "number") {
      if (!Array.isArray(cur)) return ABSENT;
      cur = elemValue(cur, s);
    } else {
      if (!isPlainObject(cur)) return ABSENT;
      cur = propValue(cur, s);
    }
    if (cur === ABSENT) return ABSENT;
  }
  return cur;
}

/** `args` with `fields` applied (a copy); throws PlanDiffError `diff_does_not_apply` when a field does not fit the base. */
export function applyFields(args: Record<string, unknown>, fields: FieldChange[], stepId: string): Record<string, unknown> {
  const fail = (msg: string): never => {
    throw new PlanDiffError("diff_does_not_apply", `step ${stepId}: ${msg}`, stepId);
  };
  const root: { args: unknown } = { args: clone(args) };
  // Verify every field against the untouched base first (field paths are disjoint).
  for (const f of fields) {
    if (f.segments[0] !== "args") fail(`field ${f.path} is not under args`);
    const cur = getAt(root, f.segments);
    const hasBefore = Object.prototype.hasOwnProperty.call(f, "before") && f.before !== undefined;
    const hasAfter = Object.prototype.hasOwnProperty.call(f, "after") && f.after !== undefined;
    if (f.kind === "added" ? hasBefore || !hasAfter : f.kind === "removed" ? !hasBefore || hasAfter : !hasBefore || !hasAfter) {
      fail(`field ${f.path} has kind ${f.kind} but inconsistent before/after`);
    }
    if (f.kind === "added" ? cur !== ABSENT : cur === ABSENT || !leafEqual(cur, f.before)) {
      fail(`field ${f.path} does not match the base plan`);
    }
  }
  for (const f of fields) {
    const parentSegs = f.segments.slice(0, -1);
    const last = f.segments[f.segments.length - 1];
    const parent = getAt(root, parentSegs);
    if (typeof last === "number") {
      if (!Array.isArray(parent)) return fail(`field ${f.path}: parent is not an array`);
      if (f.kind === "removed") {
        if (parent.length > last) parent.length = last; // removed indices are always trailing
      } else {
        parent[last] = clone(f.after);
      }
    } else {
      if (!isPlainObject(parent)) return fail(`field ${f.path}: parent is not an object`);
      if (f.kind === "removed") delete parent[last];
      else Object.defineProperty(parent, last, { value: clone(f.after), enumerable: true, writable: true, configurable: true });
    }
  }
  if (!isPlainObject(root.args)) return fail("args is not an object after applying the diff");
  return root.args;
}

/** A deep copy of plain JSON data. */
export function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/** True for exactly `{minor: integer, currency: string}` (a Money value, one leaf of the diff). */
export function isMoneyLike(v: unknown): v is Money {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v).filter((k) => propValue(v, k) !== ABSENT);
  return (
    keys.length === 2 &&
    Number.isSafeInteger(v.minor) &&
    typeof v.currency === "string" &&
    /^[A-Z]{3}$/.test(v.currency)
  );
}
