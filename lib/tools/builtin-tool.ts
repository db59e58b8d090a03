import type { z } from "zod";
import type { DemoDesk } from "../demo/demo-desk";
import type { InvoiceRecord, ShipmentRecord } from "../desk/snapshot";
import type { StepInput } from "../plan/schema";
import type { ToolDefinition } from "./types";

/*
 * A built-in tool as one module (lib/tools/<tool>/tool.ts): its definition (argument schema,
 * form fields, target, amount, grant class, bound checks), its effect preview step
 * (`effectModel`) and its demo and scale seed data (`seed`). Its reference write sits beside it
 * in lib/tools/<tool>/reference-write.ts (server-only code). Imported tools are plain
 * `ToolDefinition`s with the generic effect and no seed.
 */

/** What a tool's demo scenarios can use: the clock (UTC) and ISO dates relative to it. */
export interface DemoSeedContext {
  now: Date;
  /** ISO date `n` days after today (UTC). */
  day(n: number): string;
  /** "Monday, April 6" for the day `n` days after today (UTC), as replies write dates. */
  longDate(n: number): string;
}

/** One demo scenario: a run the demo desk seeds (idempotency key `seed:<key>`) on a ticket's task. */
export type DemoRun = DemoDesk["runs"][number];

/** Account records a tool's demo scenarios need beyond the shared freight desk. */
export type DemoRecords = Partial<Pick<DemoDesk, "tickets" | "shipments" | "invoices">>;

/**
 * What a scale-desk plan shape can use: the run's PRNG and helpers, the ticket and its account,
 * the account's invoices and shipments (snapshot records), the submission time `at` (UTC) and the
 * extra days `shift` a retry adds, and the two steps most plans share (an internal note, a reply).
 */
export interface ScalePlanContext {
  rng: () => number;
  pick<T>(xs: readonly T[]): T;
  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number;
  ticketId: string;
  accountId: string;
  invoices: readonly InvoiceRecord[];
  shipments: readonly ShipmentRecord[];
  at: Date;
  shift: number;
  note(text: string): StepInput;
  reply(body: string): StepInput;
}

/**
 * A tool's seed data:
 * - `example`: arguments valid on the reference desk (testing/fixtures/reference-desk.ts) at its
 *   clock — `day(n)` is the ISO date n days after it; the tool tests use these;
 * - `demo`: the demo desk's scenarios featuring the tool, and any records they need;
 * - `scale`: the scale desk's plan shape featuring the tool (null when the account's records
 *   give it nothing to act on), or `null` for a tool that only appears in other tools' plans.
 */
export interface ToolSeed<A> {
  example(day: (n: number) => string): A;
  demo: { records?(ctx: DemoSeedContext): DemoRecords; runs(ctx: DemoSeedContext): DemoRun[] };
  scale: ((ctx: ScalePlanContext) => StepInput[] | null) | null;
}

/**
 * A built-in tool: its definition and effect, the argument-bound issue codes its `checkBounds`
 * raises beyond the shared ones of lib/validation/codes.ts (`{}` when none; code → severity and
 * meaning), and its seed data.
 */
export interface BuiltinTool<S extends z.ZodObject = z.ZodObject> extends ToolDefinition<S> {
  readonly issueCodes: Readonly<Record<string, { severity: "error" | "warning"; meaning: string }>>;
  readonly seed: ToolSeed<z.input<S>>;
}

/** Identity helper keeping a built-in tool's literal name and schema types while checking it against {@link BuiltinTool}. */
export function defineBuiltinTool<N extends string, S extends z.ZodObject>(def: BuiltinTool<S> & { readonly name: N }): BuiltinTool<S> & { readonly name: N } {
  return def;
}

/** US dollars in minor units (the demo desks' currency). */
export const usd = (minor: number) => ({ minor, currency: "USD" as const });

/** "$1,060.00" for an amount in USD minor units, as replies write it. */
export const dollars = (minor: number) => `$${(minor / 100).toLocaleString("en-US", { minimumFractionDigits: 2 })}`;

/** The ISO date (UTC) of `d`. */
export const isoUtc = (d: Date) => d.toISOString().slice(0, 10);

/** Provenance of an argument the model chose. */
export const MODEL = { kind: "model" } as const;
