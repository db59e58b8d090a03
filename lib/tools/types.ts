import type { z } from "zod";
import type { Money } from "../money/format-money";
import type { AccountSnapshot } from "../desk/snapshot";
import type { EffectModel } from "../effects/state";

/**
 * What a tool's effect is, which drives the default gate (docs/design.md "The demo domain" table,
 * §1.8): `internal` (only our own records, e.g. a ticket note), `reversible` (can be undone,
 * e.g. a delivery window), `customer_visible` (a customer sees it, e.g. a reply),
 * `irreversible` (money moves; always needs a human approval).
 */
export type ToolEffect = "internal" | "reversible" | "customer_visible" | "irreversible";

/**
 * A step's effect on a delivery or a fee (see `ToolDefinition.outcomeEffect`): `delivery_window`,
 * the shipment and the window it sets (ISO dates, inclusive); `fee_waived`, the invoice, fee code
 * and amount waived (minor units).
 */
export type OutcomeEffect =
  | { kind: "delivery_window"; shipmentId: string; window: { from: string; to: string } }
  | { kind: "fee_waived"; invoiceId: string; feeCode: string; amount: Money };

/** A tool's default gate: a human `approval`, or `auto`-approved by policy. docs/design.md §1.8. */
export type GateDefault = "approval" | "auto";

/**
 * How people are granted a tool: `money` tools move money (grants carry ceilings in minor units;
 * the demo desks let operators approve within a ceiling but only seniors author them), `plain`
 * tools do not (granted without a ceiling).
 */
export type GrantClass = "plain" | "money";

/**
 * How the UI renders one argument, both as a form input and read-only:
 * `money` = `{minor, currency}`; `date_window` = `{from, to}` ISO dates; `text` = one line;
 * `textarea` = free text; `*_id` = an id checked against account data; `fee_code` = a fee
 * code on the step's invoice; `team` = an enum with `options`; `schema` = an argument of an
 * imported tool, rendered from its JSON Schema node (`FieldSpec.schema`, lib/tools/json-schema-tool.ts).
 */
export type FieldKind =
  | "money"
  | "date_window"
  | "text"
  | "textarea"
  | "invoice_id"
  | "shipment_id"
  | "ticket_id"
  | "account_id"
  | "fee_code"
  | "team"
  | "schema";

/** One option of an enum field (value stored in args, label shown to people). */
export interface FieldOption {
  value: string;
  label: string;
}

/**
 * Rendering metadata for one top-level argument; a tool's `fields` list is ordered as the
 * form shows them and names exactly the keys of its `argsSchema`.
 */
export interface FieldSpec {
  /** Top-level key in `args`. */
  name: string;
  /** Label shown to people, e.g. "Invoice". */
  label: string;
  kind: FieldKind;
  /** Enum choices (for `team`). */
  options?: readonly FieldOption[];
  /** One-line help text under the input. */
  help?: string;
  /** For kind `schema`: the argument's JSON Schema node (an imported tool's). */
  schema?: { [key: string]: unknown };
  /** For kind `schema`: whether the argument is required. */
  required?: boolean;
  /** For kind `schema`: the declared record kind whose id the argument holds (`x-plandesk-record`, lib/tools/tool-bindings.ts). */
  record?: string;
}

/**
 * What a step writes to: one record of account data — of a built-in kind, or of a kind the desk
 * declared (an imported tool's `x-plandesk-record` argument, lib/tools/tool-bindings.ts, e.g.
 * `{kind: "order", id: "o_118"}`). Source: docs/design.md §1.5, §5 (target).
 */
export interface TargetRef {
  kind: "invoice" | "shipment" | "ticket" | "account" | (string & {});
  id: string;
}

/** Read-only inputs a tool's bound checks may consult. `now` is the UTC clock of the check. */
export interface BoundsContext {
  desk: AccountSnapshot;
  now: Date;
  /** The run being validated, when it exists: its own approvals are not money in flight against it. */
  runId?: string;
  /**
   * Days ahead of today (UTC) a date argument (a rescheduled window's end, an imported tool's
   * `format: "date"`/`"date-time"` argument) may lie: the governing gate-policy rule's
   * `dateHorizonDays`; default RESCHEDULE_HORIZON_DAYS (lib/plan/policy.ts).
   */
  dateHorizonDays?: number;
}

/**
 * A problem a tool found with its own arguments. The pipeline adds `stage` and `stepId` and
 * prefixes `path` (dotted, relative to `args`, e.g. "amount.minor") with "steps.N.args.".
 */
export interface ToolIssue {
  code: string;
  severity: "error" | "warning";
  path?: string;
  message: string;
  needsAcknowledgement?: boolean;
  details?: Record<string, unknown>;
}

/**
 * What the console's pages need of a tool to show its steps, and no more: names, effect, gate,
 * grant class, form fields, and which argument holds the money it moves. Plain data with no
 * argument schema, so a page that only shows steps loads no validation code (docs/design.md
 * "Page weight"). A built-in tool's is `lib/tools/<tool>/meta.ts`; an imported tool's is built
 * from its spec (lib/tools/meta-catalog.ts). Every {@link ToolDefinition} is one.
 */
export interface ToolMeta {
  /** Stable snake_case name, e.g. "issue_refund". */
  readonly name: string;
  /** Short label for people, e.g. "Issue refund". */
  readonly label: string;
  /** One sentence: what the tool does in the world. */
  readonly description: string;
  readonly effect: ToolEffect;
  /** Default gate; irreversible tools are `approval` whatever this or any policy says. */
  readonly gate: GateDefault;
  /** How people are granted it (money ceilings or none). */
  readonly grantClass: GrantClass;
  /** Form/read-only rendering metadata, in display order. */
  readonly fields: readonly FieldSpec[];
  /**
   * The top-level argument holding the Money (minor units) this step moves — what the tool's
   * `amount` returns — or null when it moves none. Read in the browser with `moneyOf`
   * (lib/tools/tool-meta.ts); a test holds it to `amount` for every built-in tool.
   */
  readonly moneyArg: string | null;
}

/**
 * One tool the agent may propose and operators may author: a built-in tool (a module in
 * lib/tools/<tool>/, listed in lib/tools/builtin-tools.ts) or an imported one
 * (lib/tools/json-schema-tool.ts, with the generic effect). Methods take arguments already
 * parsed by `argsSchema`.
 *
 * Methods are declared in method syntax on purpose: it lets every concrete tool be stored as
 * a plain `ToolDefinition` in the catalog.
 */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> extends ToolMeta {
  /** Strict zod schema of `args`, shared by the server pipeline and the UI form resolver. */
  readonly argsSchema: S;
  /** The record this step writes to, or `null` when its id does not resolve in `desk`. */
  target(args: z.output<S>, desk: AccountSnapshot): TargetRef | null;
  /** The money this step moves (checked against grant ceilings), or `undefined`. */
  amount(args: z.output<S>): Money | undefined;
  /** The delivery window this step sets, if any (backs date promises in replies). */
  deliveryWindow?(args: z.output<S>): { from: string; to: string } | undefined;
  /** Free text sent to the customer, if any (scanned for commitments, docs/design.md §1.6). */
  customerText?(args: z.output<S>): string | undefined;
  /**
   * What this step does to a delivery or a fee, as the outcome's counterfactual compares it
   * (docs/design.md "Did the edit help?"): the window it sets on a shipment, or the fee it waives —
   * the same change its `effectModel` previews (`shipment_window` after, `invoice_fee` before − after).
   * Undefined for a tool that does neither.
   */
  outcomeEffect?(args: z.output<S>): OutcomeEffect | undefined;
  /** Checks the arguments against account data (docs/design.md §1.4); `[]` when all is well. */
  checkBounds(args: z.output<S>, ctx: BoundsContext): ToolIssue[];
  /** What the step does to the account, for the effects preview: a built-in tool's preview step, or the generic unknown effect. */
  readonly effectModel: EffectModel<z.output<S>>;
}
