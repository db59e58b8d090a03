/**
 * Fuzzing of `POST /api/v1/tasks/{taskId}/runs`, shared by the property test
 * (app/api/v1/fuzz.test.ts, ~200 cases) and the benchmark (scripts/bench-api-fuzz.ts, ≥ 10,000).
 * Test and bench support only (imports fast-check, a dev dependency).
 *
 * {@link fuzzCaseArb} generates request bodies in families; {@link runFuzzCase} sends one to
 * the route handler in-process and checks the oracle:
 * - never a 5xx, never a thrown exception, always a JSON body;
 * - every refusal has exactly the shape `{error: {code, message, ...}}`;
 * - no refusal creates a run; an acceptance creates at most one run, and that run's stored
 *   plan passes `validatePlan` again (same desk, the run's own clock, the agent's allowlist);
 * - a body known to be invalid is never accepted (unless it replays an Idempotency-Key, which
 *   returns the earlier run), and a known-valid control plan is accepted.
 */
import fc from "fast-check";
import { digest } from "../lib/plan/digest";
import { MAX_PLAN_STEPS } from "../lib/plan/schema";
import { toolNames } from "../lib/tools/builtin-tools";
import { validatePlan } from "../lib/validation/pipeline";
import { prisma } from "../lib/server/db/db";
import { loadAccountSnapshot } from "../lib/server/account-data/load-account-snapshot";

/** The submit-run route handler's signature. */
export type SubmitHandler = (req: Request, ctx: { params: Promise<{ taskId: string }> }) => Promise<Response>;

/** What the fuzzer knows of the task it submits to (a seeded demo ticket with its own account). */
export interface FuzzTarget {
  taskId: string;
  ticketId: string;
  accountId: string;
  liveRevision: number;
  /** An open invoice of the account: id, open balance (minor, USD). */
  invoice: { id: string; openMinor: number };
  /** An open invoice of the account with a fee: id, fee code and fee amount (minor, USD). */
  feeInvoice: { id: string; feeCode: string; feeMinor: number };
}

/** Ticket 75016 of the demo desk (Fjordline Seafood): no seeded run, two open invoices. */
export const DEMO_FUZZ_TARGET: FuzzTarget = {
  taskId: "task_75016",
  ticketId: "75016",
  accountId: "acc_fjord",
  liveRevision: 1,
  invoice: { id: "in_74403", openMinor: 120000 },
  feeInvoice: { id: "in_74401", feeCode: "LATE_FEE", feeMinor: 7500 },
};

export type Family =
  | "random_json"
  | "random_text"
  | "plan_shaped"
  | "mutated_invalid"
  | "envelope_invalid"
  | "oversized"
  | "valid_control";
export const FAMILIES: readonly Family[] = [
  "random_json",
  "random_text",
  "plan_shaped",
  "mutated_invalid",
  "envelope_invalid",
  "oversized",
  "valid_control",
];

/** One request: the raw body text, the path's taskId, an optional Idempotency-Key, what we expect. */
export interface FuzzCase {
  family: Family;
  taskId: string;
  bodyText: string;
  idempotencyKey?: string;
  /** "invalid": must not be accepted; "valid": must be accepted; "unknown": only the generic oracle. */
  expect: "invalid" | "valid" | "unknown";
  /** What was done to the body (for reports). */
  note?: string;
}


// ---------------------------------------------------------------------------------------------
// Raw JSON tokens: numbers JSON.stringify cannot produce (-0, 1e400, big integers).

const RAW = "\u0000raw:";
/** A placeholder that {@link toBodyText} turns into the literal JSON number text `token`. */
const raw = (token: string): string => `${RAW}${token}`;
const RAW_NUMBERS = [
  "-0",
  "-0.0",
  "0e5",
  "1e400",
  "-1e400",
  "1e-400",
  "5e-324",
  "9007199254740993",
  "123456789012345678901234567890",
  "-123456789012345678901234567890",
  "1.0",
  "1E2",
  "0.1",
  "2147483648",
  "1.7976931348623157e308",
];

/** JSON text of `value`, with raw placeholders replaced by their number tokens. */
export function toBodyText(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.replace(/"\\u0000raw:([-+.eE0-9]+)"/g, "$1");
}

/** An object with own properties in order — also `__proto__`, which an object literal would not create. */
function obj(entries: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

// ---------------------------------------------------------------------------------------------
// Building blocks

/** Characters that look like Latin letters/digits, or are invisible (homoglyph attacks). */
const LOOKALIKES: Record<string, string[]> = {
  a: ["\u0430", "\u0251"],
  e: ["\u0435"],
  i: ["\u0456", "\u0131", "\u00ed"],
  o: ["\u043e", "\u03bf", "0"],
  p: ["\u0440"],
  c: ["\u0441"],
  s: ["\u0455"],
  n: ["\u0578"],
  _: ["\uff3f", "-"],
  "0": ["O", "\uff10"],
  "1": ["l", "I", "\uff11"],
  "4": ["\uff14"],
  "7": ["\uff17"],
};
const INVISIBLE = ["\u200b", "\u200d", "\u00a0", "\u202e", "\ufeff", "\u0301", " "];

/** A string that looks like `s` but is not: one character swapped for a lookalike, or an invisible added. */
function lookalikeOf(s: string): fc.Arbitrary<string> {
  const swappable = [...s].map((ch, i) => [ch, i] as const).filter(([ch]) => LOOKALIKES[ch]);
  const swap =
    swappable.length > 0
      ? fc.tuple(fc.constantFrom(...swappable), fc.nat()).map(([[ch, i], k]) => {
          const chars = [...s];
          const alts = LOOKALIKES[ch];
          chars[i] = alts[k % alts.length];
          return chars.join("");
        })
      : null;
  const insert = fc
    .tuple(fc.nat({ max: s.length }), fc.constantFrom(...INVISIBLE))
    .map(([i, inv]) => s.slice(0, i) + inv + s.slice(i));
  const options: fc.Arbitrary<string>[] = [insert];
  if (swap) options.push(swap);
  if (s.toUpperCase() !== s) options.push(fc.constant(s.toUpperCase()));
  return fc.oneof(...options);
}

const weirdString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 12 }), // includes lone surrogates
  fc.constantFrom("", " ", "\t\n", "\u0000", "\ud800", "\udfff", "\ud83d", "null", "undefined", "NaN", "[object Object]", "__proto__", "constructor"),
  fc.constantFrom("123456789012345678901234567890", "9007199254740993", "-0", "1e400", "0x10", "1_000"),
);
const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53 - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1.5, 1e21),
  fc.constantFrom(...RAW_NUMBERS).map(raw),
);
const weirdKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "id", "tool", "args", "provenance", "author", "minor", "currency"),
);
/** Any JSON value, including raw numbers and strange strings at the leaves. */
const weirdJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    weirdNumber,
    weirdString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(weirdKey, tie("value")), { maxLength: 4 }).map(obj),
  ),
})).value;

const validText = fc
  .string({ minLength: 1, maxLength: 120 })
  .filter((s) => s.trim().length > 0)
  .map((s) => `Fuzz: ${s}`);

/**
 * A valid step of each tool the demo agent may call, for `t` (the ids are replaced later). The
 * irreversible ones carry what the seeded gate policy requires of them: title, evidence (their own
 * target record), risk and stop condition.
 */
function validStepArbs(t: FuzzTarget): fc.Arbitrary<Record<string, unknown>>[] {
  const usd = (minor: number) => ({ minor, currency: "USD" });
  const reasons = (recordType: string, recordId: string) => ({ title: "Fuzz step", evidence: [{ recordType, recordId }], risk: "Money moves", stopCondition: "The record changed meanwhile" });
  return [
    validText.map((note) => ({ tool: "add_ticket_note", args: { ticketId: t.ticketId, note }, provenance: { note: { kind: "model" } } })),
    fc.constantFrom("Thanks for your message; we are looking into it.", "We have passed this on to the team and will be in touch.").map((body) => ({
      tool: "send_reply",
      args: { ticketId: t.ticketId, body },
    })),
    // at most a sixth of the balance each: a valid plan's steps (≤ 6) together stay within it
    fc.integer({ min: 1, max: Math.max(1, Math.floor(t.invoice.openMinor / 6)) }).map((minor) => ({
      tool: "issue_refund",
      args: { invoiceId: t.invoice.id, amount: usd(minor), reason: "Fuzz refund" },
      provenance: { invoiceId: { kind: "source", recordType: "invoice", recordId: t.invoice.id }, amount: { kind: "model" } },
      ...reasons("invoice", t.invoice.id),
    })),
    fc.integer({ min: 1, max: 500000 }).map((minor) => ({ tool: "apply_credit", args: { accountId: t.accountId, amount: usd(minor), memo: "Fuzz credit" }, ...reasons("account", t.accountId) })),
    fc.integer({ min: 1, max: Math.max(1, Math.floor(t.feeInvoice.feeMinor / 6)) }).map((minor) => ({
      tool: "waive_fee",
      args: { invoiceId: t.feeInvoice.id, feeCode: t.feeInvoice.feeCode, amount: usd(minor) },
      ...reasons("invoice", t.feeInvoice.id),
    })),
    fc.tuple(fc.constantFrom("billing", "claims", "customs", "operations", "management"), validText).map(([team, note]) => ({
      tool: "escalate_ticket",
      args: { ticketId: t.ticketId, team, note },
    })),
  ];
}

/** A valid plan body: 1–6 valid steps with distinct ids (some left for the server to generate). */
function validBodyArb(t: FuzzTarget): fc.Arbitrary<Record<string, unknown>> {
  const steps = fc.array(fc.oneof(...validStepArbs(t)), { minLength: 1, maxLength: 6 });
  return fc
    .record({
      steps,
      omitIds: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      expiresInSeconds: fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined }),
    })
    .map(({ steps, omitIds, expiresInSeconds }) => ({
      taskRevision: t.liveRevision,
      steps: steps.map((s, i) => (omitIds[i] ? s : { id: `s${i + 1}`, ...s })),
      ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}),
    }));
}

type PathT = (string | number)[];
function paths(v: unknown, prefix: PathT, leaves: PathT[], objects: PathT[]) {
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], leaves, objects));
  else if (v !== null && typeof v === "object") {
    objects.push(prefix);
    for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...prefix, k], leaves, objects);
  } else leaves.push(prefix);
}
const getAt = (root: unknown, p: PathT): unknown => p.reduce<unknown>((acc, k) => (acc as Record<string | number, unknown>)[k], root);
function setAt(root: unknown, p: PathT, value: unknown) {
  (getAt(root, p.slice(0, -1)) as Record<string | number, unknown>)[p[p.length - 1]] = value;
}
const jsonType = (v: unknown) =>
  typeof v === "string" && v.startsWith(RAW) ? "number" : v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Which mutation of a valid plan, and where; all of them make the plan invalid. */
function mutatedArb(t: FuzzTarget): fc.Arbitrary<FuzzCase> {
  const base = validBodyArb(t);
  const make = (note: string, body: unknown): FuzzCase => ({ family: "mutated_invalid", taskId: t.taskId, bodyText: toBodyText(body), expect: "invalid", note });

  // A leaf inside `steps` (id, tool, an argument, a provenance entry) gets a value of another JSON type.
  const typeChanged = fc.tuple(base, fc.nat(), weirdJson).chain(([body, k, v]) => {
    const leaves: PathT[] = [];
    paths(body.steps, ["steps"], leaves, []);
    const p = leaves[k % leaves.length];
    if (jsonType(getAt(body, p)) === jsonType(v)) return fc.constant(null);
    // A step's `id` sent as null means absent (strict-mode nulls): the server makes one, and the
    // plan stays valid. Other step fields sent as null are absent too, but the seeded gate policy
    // requires them of the irreversible tools, or they are arguments no tool leaves optional.
    if (v === null && p.length === 3 && p[2] === "id") return fc.constant(null);
    const b = clone(body);
    setAt(b, p, v);
    return fc.constant(make(`type_changed ${p.join(".")}`, b));
  });
  // A field no schema defines, on a step, its args, an amount or a provenance entry.
  const unknownField = fc.tuple(base, fc.nat(), weirdKey, weirdJson).chain(([body, k, key, v]) => {
    const objects: PathT[] = [];
    paths(body.steps, ["steps"], [], objects);
    const target = objects.filter((p) => {
      const last = p[p.length - 1];
      return last !== "provenance"; // a provenance map takes any argument name; its entries are checked
    });
    const p = target[k % target.length];
    const o = getAt(body, p) as Record<string, unknown>;
    // `id`, `provenance` and `author` are optional step fields an agent may send (not unknown).
    if (Object.prototype.hasOwnProperty.call(o, key) || ["id", "provenance", "author"].includes(key)) return fc.constant(null);
    const b = clone(body);
    const parent = getAt(b, p) as Record<string, unknown>;
    Object.defineProperty(parent, key, { value: v ?? 1, enumerable: true, writable: true, configurable: true });
    return fc.constant(make(`unknown_field ${p.join(".")}.${key}`, b));
  });
  // A required argument removed.
  const missing = fc.tuple(base, fc.nat(), fc.nat()).map(([body, k, j]) => {
    const b = clone(body);
    const step = (b.steps as Record<string, unknown>[])[k % (b.steps as unknown[]).length];
    const args = step.args as Record<string, unknown>;
    const keys = Object.keys(args);
    const key = keys[j % keys.length];
    delete args[key];
    return make(`missing args.${key} of ${String(step.tool)}`, b);
  });
  // An id, tool, fee code or team that only looks like the real one.
  const lookalike = fc.tuple(base, fc.nat()).chain(([body, k]) => {
    const b = clone(body);
    const step = (b.steps as Record<string, unknown>[])[k % (b.steps as unknown[]).length];
    const args = step.args as Record<string, unknown>;
    const fields = ["tool", ...["ticketId", "invoiceId", "accountId", "feeCode", "team"].filter((f) => f in args)];
    return fc.constantFrom(...fields).chain((f) => {
      const original = String(f === "tool" ? step.tool : args[f]);
      return lookalikeOf(original).map((fake) => {
        if (f === "tool") step.tool = fake;
        else args[f] = fake;
        return make(`lookalike ${f} ${JSON.stringify(fake)}`, b);
      });
    });
  });
  // An amount that is not a positive safe integer of minor units, or more than allowed.
  const badAmount = fc
    .tuple(
      base.filter((b) => (b.steps as Record<string, unknown>[]).some((s) => "amount" in (s.args as object))),
      fc.nat(),
      fc.constantFrom<unknown>(
        raw("-0"),
        raw("-0.0"),
        0,
        -1,
        -500,
        1.5,
        raw("1e400"),
        raw("-1e400"),
        raw("9007199254740993"),
        raw("123456789012345678901234567890"),
        "5000",
        "123456789012345678901234567890",
        "\uff15000",
        null,
        true,
        [5000],
        { minor: 5000 },
      ),
    )
    .map(([body, k, value]) => {
      const b = clone(body);
      const money = (b.steps as Record<string, unknown>[]).filter((s) => "amount" in (s.args as object));
      const step = money[k % money.length];
      ((step.args as Record<string, unknown>).amount as Record<string, unknown>).minor = value;
      return make(`amount.minor=${typeof value === "string" ? value.replace(RAW, "raw:") : JSON.stringify(value)} on ${String(step.tool)}`, b);
    });
  const overBalance = base
    .filter((b) => (b.steps as Record<string, unknown>[]).some((s) => s.tool === "issue_refund" || s.tool === "waive_fee"))
    .map((body) => {
      const b = clone(body);
      const step = (b.steps as Record<string, unknown>[]).find((s) => s.tool === "issue_refund" || s.tool === "waive_fee")!;
      const limit = step.tool === "issue_refund" ? t.invoice.openMinor : t.feeInvoice.feeMinor;
      ((step.args as Record<string, unknown>).amount as Record<string, unknown>).minor = limit + 1;
      return make(`over limit on ${String(step.tool)}`, b);
    });
  // Text that is blank, too long, or not valid Unicode.
  const badText = fc
    .tuple(base, fc.nat(), fc.constantFrom("   ", "\n\t", "", "\ud800 lone surrogate", "x".repeat(10001)))
    .map(([body, k, text]) => {
      const b = clone(body);
      const step = (b.steps as Record<string, unknown>[])[k % (b.steps as unknown[]).length];
      const args = step.args as Record<string, unknown>;
      const field = ["note", "body", "reason", "memo"].find((f) => f in args) ?? "feeCode";
      args[field] = field === "feeCode" && text.length > 10000 ? "x".repeat(65) : text;
      return make(`bad text ${field} (${text.length} chars)`, b);
    });
  // Two steps with one id.
  const duplicateIds = base
    .filter((b) => (b.steps as unknown[]).length >= 2)
    .map((body) => {
      const b = clone(body);
      for (const s of b.steps as Record<string, unknown>[]) s.id = "same_id";
      return make("duplicate ids", b);
    });
  // A step that is not an object, or has a bad id.
  const badStep = fc
    .tuple(base, fc.nat(), fc.constantFrom<unknown>(null, 1, "step", [], true, { id: "has space" }, { id: "" }, { id: "x".repeat(65) }, { id: 7 }))
    .map(([body, k, bad]) => {
      const b = clone(body);
      const steps = b.steps as Record<string, unknown>[];
      const i = k % steps.length;
      if (bad !== null && typeof bad === "object" && !Array.isArray(bad)) steps[i] = { ...steps[i], ...(bad as object) };
      else (steps as unknown[])[i] = bad;
      return make(`bad step ${JSON.stringify(bad)}`, b);
    });
  // Tools the agent may not call (one that the catalog does not know; a person's authorship is ignored).
  const unknownTool = fc.tuple(base, fc.constantFrom("delete_account", "issue_refund ", "Issue_Refund", "exec", "")).map(([body, tool]) => {
    const b = clone(body);
    (b.steps as Record<string, unknown>[])[0].tool = tool;
    return make(`tool ${JSON.stringify(tool)}`, b);
  });
  return fc
    .oneof(typeChanged, unknownField, missing, lookalike, badAmount, overBalance, badText, duplicateIds, badStep, unknownTool)
    .filter((c): c is FuzzCase => c !== null);
}

/** A valid plan in an envelope that is wrong: revision, steps container, extra keys, expiry. */
function envelopeArb(t: FuzzTarget): fc.Arbitrary<FuzzCase> {
  const wrongRevision = fc.constantFrom<unknown>(
    0,
    -1,
    raw("-0"),
    t.liveRevision + 1,
    t.liveRevision + 1000,
    1.5,
    raw("1e400"),
    raw("123456789012345678901234567890"),
    String(t.liveRevision),
    null,
    [t.liveRevision],
    true,
  );
  // null is not wrong: an optional field sent as null means absent (strict-mode nulls)
  const wrongExpiry = fc.constantFrom<unknown>(0, -1, raw("-0"), 1.5, raw("1e400"), raw("123456789012345678901234567890"), "3600", [60], {});
  return fc
    .tuple(validBodyArb(t), fc.nat({ max: 4 }), wrongRevision, wrongExpiry, weirdKey, weirdJson)
    .filter(([, kind, , , key]) => kind !== 2 || !["taskRevision", "steps", "expiresInSeconds"].includes(key))
    .map(([body, kind, rev, exp, key, v]) => {
      const b: Record<string, unknown> = { ...body };
      let note: string;
      if (kind === 0) {
        b.taskRevision = rev;
        note = "taskRevision";
      } else if (kind === 1) {
        b.expiresInSeconds = exp;
        note = "expiresInSeconds";
      } else if (kind === 2) {
        Object.defineProperty(b, key, { value: v ?? 1, enumerable: true, writable: true, configurable: true });
        note = `extra key ${JSON.stringify(key)}`;
      } else if (kind === 3) {
        b.steps = Object.fromEntries((body.steps as unknown[]).map((s, i) => [String(i), s]));
        note = "steps as an object";
      } else {
        delete b.taskRevision;
        note = "no taskRevision";
      }
      return { family: "envelope_invalid" as const, taskId: t.taskId, bodyText: toBodyText(b), expect: "invalid" as const, note };
    });
}

/** Too many steps (capped at 400 so a case stays cheap), or one huge argument. */
function oversizedArb(t: FuzzTarget): fc.Arbitrary<FuzzCase> {
  const many = fc.tuple(fc.integer({ min: MAX_PLAN_STEPS + 1, max: 400 }), validBodyArb(t)).map(([n, body]) => {
    const first = (body.steps as Record<string, unknown>[])[0];
    const steps = Array.from({ length: n }, (_, i) => ({ ...first, id: `s${i + 1}` }));
    return { family: "oversized" as const, taskId: t.taskId, bodyText: toBodyText({ ...body, steps }), expect: "invalid" as const, note: `${n} steps` };
  });
  const huge = fc.integer({ min: 4001, max: 200000 }).map((n) => ({
    family: "oversized" as const,
    taskId: t.taskId,
    bodyText: toBodyText({ taskRevision: t.liveRevision, steps: [{ id: "s1", tool: "add_ticket_note", args: { ticketId: t.ticketId, note: "n".repeat(n) } }] }),
    expect: "invalid" as const,
    note: `note of ${n} chars`,
  }));
  const deep = fc.oneof(fc.integer({ min: 50, max: 5000 }), fc.constant(20000)).map((depth) => ({
    family: "oversized" as const,
    taskId: t.taskId,
    bodyText: `{"taskRevision":${t.liveRevision},"steps":[{"id":"s1","tool":"add_ticket_note","args":{"ticketId":"${t.ticketId}","note":"x","deep":${"[".repeat(depth)}${"]".repeat(depth)}}}]}`,
    expect: "invalid" as const,
    note: `nesting depth ${depth}`,
  }));
  return fc.oneof(many, huge, deep);
}

/** Plan-shaped anything: random steps of random (mostly real) tools with random args. */
function planShapedArb(t: FuzzTarget): fc.Arbitrary<FuzzCase> {
  const idArb = fc.oneof(fc.constantFrom("s1", "s2", "s3", "st_x"), fc.string({ maxLength: 10 }), weirdJson);
  const toolArb = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...toolNames) },
    { weight: 1, arbitrary: fc.constantFrom(...toolNames).chain(lookalikeOf) },
    { weight: 1, arbitrary: weirdString },
  );
  const idValue = fc.oneof(
    fc.constantFrom(t.ticketId, t.accountId, t.invoice.id, t.feeInvoice.id, "74991", "in_74119", "acc_halvorsen", "sh_5521", "in_74402"),
    fc.constantFrom(t.ticketId, t.invoice.id, t.accountId).chain(lookalikeOf),
    weirdString,
  );
  const money = fc.oneof(
    fc.record({ minor: weirdNumber, currency: fc.oneof(fc.constantFrom("USD", "EUR", "usd", "US$", "XBT"), weirdString) }),
    weirdJson,
  );
  const argsArb = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .record(
          {
            ticketId: idValue,
            invoiceId: idValue,
            accountId: idValue,
            shipmentId: idValue,
            note: fc.oneof(validText, weirdString),
            body: fc.oneof(validText, weirdString, fc.constantFrom("We will refund $50.00 tomorrow.", "Your delivery is on 2026-12-24.")),
            reason: fc.oneof(validText, weirdString),
            memo: fc.oneof(validText, weirdString),
            amount: money,
            feeCode: fc.oneof(fc.constantFrom("LATE_FEE", "STORAGE", "late_fee"), weirdString),
            team: fc.oneof(fc.constantFrom("billing", "claims", "customs", "operations", "management", "Claims"), weirdString),
            window: fc.oneof(fc.record({ from: weirdString, to: weirdString }), fc.record({ from: fc.constantFrom("2026-12-01", "2027-02-30"), to: fc.constantFrom("2026-12-02", "2026-11-01") }), weirdJson),
          },
          { requiredKeys: [] },
        ),
    },
    { weight: 1, arbitrary: weirdJson },
  );
  const provenanceArb = fc.oneof(
    fc.dictionary(
      fc.constantFrom("ticketId", "note", "amount", "invoiceId", "body", "window.from"),
      fc.oneof(
        fc.constantFrom<unknown>({ kind: "model" }, { kind: "user_literal" }, { kind: "computed" }, { kind: "source", recordType: "invoice", recordId: "in_1" }),
        fc.constantFrom<unknown>({ kind: "operator", userId: "usr_senior", at: "2026-01-01T00:00:00Z" }, { kind: "operator", userId: "usr_senior", at: "2026-01-01T00:00:00Z", previous: 5 }),
        weirdJson,
      ),
      { maxKeys: 3 },
    ),
    weirdJson,
  );
  const stepArb = fc
    .record(
      { id: idArb, tool: toolArb, args: argsArb, provenance: provenanceArb, author: fc.oneof(fc.constant({ kind: "user", userId: "usr_senior" }), weirdJson) },
      { requiredKeys: ["tool", "args"] },
    )
    .map((s) => obj(Object.entries(s)));
  const stepsArb = fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: stepArb }, { weight: 1, arbitrary: weirdJson }), { maxLength: 8 }) },
    { weight: 1, arbitrary: fc.array(fc.constant({ tool: "add_ticket_note", args: {} }), { minLength: 21, maxLength: 300 }) },
  );
  // Mostly a well-formed envelope, so most cases reach the validation pipeline.
  const envelope = fc.record({
    taskRevision: fc.oneof({ weight: 12, arbitrary: fc.constant<unknown>(t.liveRevision) }, { weight: 1, arbitrary: weirdNumber }, { weight: 1, arbitrary: weirdJson }),
    steps: stepsArb,
    expiresInSeconds: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 10 ** 9 }) },
      { weight: 1, arbitrary: weirdNumber },
    ),
    extra: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(weirdKey, weirdJson) }),
  });
  return envelope.map(({ taskRevision, steps, expiresInSeconds, extra }) => {
    const entries: Array<[string, unknown]> = [
      ["taskRevision", taskRevision],
      ["steps", steps],
    ];
    if (expiresInSeconds !== undefined) entries.push(["expiresInSeconds", expiresInSeconds]);
    if (extra) entries.push(extra);
    return { family: "plan_shaped" as const, taskId: t.taskId, bodyText: toBodyText(obj(entries)), expect: "unknown" as const };
  });
}

/** Idempotency keys: mostly none; some from a small pool (so replays happen); some malformed. */
function keyArb(runTag: string): fc.Arbitrary<string | undefined> {
  const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
  return fc.oneof(
    { weight: 40, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("k1", "k2", "k3").map((k) => `${runTag}-${k}`) },
    { weight: 1, arbitrary: fc.string({ unit: printable, maxLength: 210 }) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "a b", "é", "x".repeat(201), "\t") },
  );
}

/**
 * Fuzz cases for `target` (a task the agent may submit to), in all families. `runTag` scopes
 * the pooled Idempotency-Keys to one run of the fuzzer (keys are per agent, forever).
 */
export function fuzzCaseArb(target: FuzzTarget, runTag: string): fc.Arbitrary<FuzzCase> {
  const randomJson = fc.oneof(fc.jsonValue(), weirdJson).map((v) => ({
    family: "random_json" as const,
    taskId: target.taskId,
    bodyText: toBodyText(v),
    expect: "invalid" as const,
  }));
  const randomText = fc
    .oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)), // truncated JSON
      fc.constantFrom("", "   ", "{", "[1,]", "{'a':1}", "NaN", "undefined", '{"taskRevision":1,"steps":[],}', "\ufeff{}", "\u0000"),
    )
    .map((text) => ({ family: "random_text" as const, taskId: target.taskId, bodyText: text, expect: "invalid" as const }));
  const valid = validBodyArb(target).map((body) => ({
    family: "valid_control" as const,
    taskId: target.taskId,
    bodyText: toBodyText(body),
    expect: "valid" as const,
  }));
  const cases = fc.oneof(
    { weight: 2, arbitrary: randomJson },
    { weight: 1, arbitrary: randomText },
    { weight: 4, arbitrary: planShapedArb(target) },
    { weight: 4, arbitrary: mutatedArb(target) },
    { weight: 1, arbitrary: envelopeArb(target) },
    { weight: 1, arbitrary: oversizedArb(target) },
    { weight: 2, arbitrary: valid },
  );
  const taskIdArb = fc.oneof(
    { weight: 30, arbitrary: fc.constant(target.taskId) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(lookalikeOf(target.taskId), weirdString, fc.constantFrom("task_00000", "..", "%2e%2e"))
        .filter((id) => id !== target.taskId && isUrlSafe(id)),
    },
  );
  return fc.tuple(cases, taskIdArb, keyArb(runTag)).map(([c, taskId, idempotencyKey]) => {
    // A body sent to another task is refused whatever it holds (404), and so is a malformed key (400).
    const refused = taskId !== target.taskId || (idempotencyKey !== undefined && !isValidKeyHeader(idempotencyKey));
    return {
      ...c,
      taskId,
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      expect: refused ? "invalid" : c.expect,
    };
  });
}

/** True when `s` can be put in a URL path (no lone surrogates). */
function isUrlSafe(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** Whether `key`, as the Headers class normalises it (trimmed), is a key lib/server/http/idempotency.ts accepts. */
function isValidKeyHeader(key: string): boolean {
  return /^[\x21-\x7e]{1,200}$/.test(key.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, ""));
}

/** The outcome of one case. `problems` is empty when the oracle holds. */
export interface FuzzOutcome {
  status: number;
  code?: string;
  replayed: boolean;
  fiveHundred: boolean;
  acceptedInvalid: boolean;
  validRefused: boolean;
  problems: string[];
}

interface ErrorBody {
  error: { code: unknown; message: unknown };
}

/**
 * Sends `c` to `handler` as the agent with `apiKey` (allowlist `agentAllowedTools`) and checks
 * the oracle (see the module comment). Never throws for a handler failure: reports it.
 */
export async function runFuzzCase(handler: SubmitHandler, c: FuzzCase, apiKey: string, agentAllowedTools: string[]): Promise<FuzzOutcome> {
  const out: FuzzOutcome = { status: 0, replayed: false, fiveHundred: false, acceptedInvalid: false, validRefused: false, problems: [] };
  const headers = new Headers({ authorization: `Bearer ${apiKey}`, "content-type": "application/json" });
  if (c.idempotencyKey !== undefined) headers.set("idempotency-key", c.idempotencyKey);
  const before = await prisma.run.count();
  let res: Response;
  try {
    const req = new Request(`http://localhost:3999/api/v1/tasks/${encodeURIComponent(c.taskId)}/runs`, { method: "POST", headers, body: c.bodyText });
    res = await handler(req, { params: Promise.resolve({ taskId: c.taskId }) });
  } catch (e) {
    out.fiveHundred = true;
    out.problems.push(`handler threw: ${e instanceof Error ? e.message : String(e)}`);
    return out;
  }
  out.status = res.status;
  out.replayed = res.headers.get("idempotent-replayed") === "true";
  if (res.status >= 500) {
    out.fiveHundred = true;
    out.problems.push(`status ${res.status}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    out.problems.push("body is not JSON");
    return out;
  }
  const after = await prisma.run.count();

  if (res.status >= 400) {
    const e = (body as ErrorBody | null)?.error;
    const keys = body && typeof body === "object" ? Object.keys(body) : [];
    if (keys.length !== 1 || keys[0] !== "error" || !e || typeof e.code !== "string" || typeof e.message !== "string" || e.message === "") {
      out.problems.push(`malformed error body ${JSON.stringify(body).slice(0, 200)}`);
    } else out.code = e.code;
    if (after !== before) {
      out.acceptedInvalid = true;
      out.problems.push(`refused with ${res.status} but stored ${after - before} run(s)`);
    }
    // A pooled Idempotency-Key reused with another body is rightly refused (409 idempotency_conflict).
    const keyReuse = res.status === 409 && out.code === "idempotency_conflict" && c.idempotencyKey !== undefined;
    if (c.expect === "valid" && !keyReuse) {
      out.validRefused = true;
      out.problems.push(`valid plan refused: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    return out;
  }

  if (res.status !== 201) {
    out.problems.push(`unexpected status ${res.status}`);
    return out;
  }
  const run = (body as { run?: { id?: unknown; steps?: Array<{ tool: string; args: unknown; digest: string }> } }).run;
  if (!run || typeof run.id !== "string") {
    out.problems.push("201 without a run");
    return out;
  }
  const created = after - before;
  if (created !== (out.replayed ? 0 : 1)) {
    out.problems.push(`201 (${out.replayed ? "replay" : "new"}) but ${created} run(s) stored`);
    if (created > 1) out.acceptedInvalid = true;
  }
  if (c.expect === "invalid" && !out.replayed) {
    out.acceptedInvalid = true;
    out.problems.push("a plan known to be invalid was accepted");
  }
  const stored = await prisma.run.findUnique({ where: { id: run.id }, include: { planVersions: true, task: true } });
  const pv = stored?.planVersions.find((p) => p.version === 1);
  if (!stored || !pv) {
    out.problems.push(`run ${run.id} answered but not stored`);
    return out;
  }
  const desk = await loadAccountSnapshot({ ticketId: stored.task.ticketId, desk: stored.desk, steps: Array.isArray(pv.steps) ? pv.steps : [], now: stored.createdAt });
  const again = validatePlan({ version: 1, steps: pv.steps }, { desk, now: stored.createdAt, agentAllowedTools });
  if (!again.ok) {
    out.acceptedInvalid = true;
    out.problems.push(`stored plan fails validation: ${JSON.stringify(again.issues.filter((i) => i.severity === "error")).slice(0, 400)}`);
  }
  for (const s of run.steps ?? []) {
    let expected: string | null = null;
    try {
      expected = digest(s);
    } catch {
      /* reported below */
    }
    if (s.digest !== expected) out.problems.push(`step digest ${s.digest} is not digest({tool, args}) ${expected}`);
  }
  return out;
}
