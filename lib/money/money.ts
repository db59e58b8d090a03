import { z } from "zod";
import { CURRENCIES, MAX_MONEY_MINOR, type Currency, type Money } from "./format-money";

export * from "./format-money";

/**
 * Currencies the desk settles in (ISO 4217 codes), as a schema. Demo money is USD.
 * Source: docs/api.md — money is `{minor: integer, currency}`.
 */
export const currencySchema = z.enum(CURRENCIES);

/**
 * An amount of money: integer minor units (cents) plus currency, never a float.
 * A missing or cleared amount is a validation error, never 0.
 * Source: docs/design.md §2 (typed plans), docs/api.md.
 */
export const moneySchema = z
  .object({
    minor: z
      .number({ error: "Amount is required" })
      .int({ error: "Amount must be whole minor units", abort: true })
      .max(MAX_MONEY_MINOR, "Amount is more than the most any step may move (1,000,000,000.00)"),
    currency: currencySchema,
  })
  .strict();

// The plain types of lib/money/format-money.ts are exactly what the schemas accept.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameMoney: Same<z.infer<typeof moneySchema>, Money> & Same<z.infer<typeof currencySchema>, Currency> = true;
void sameMoney;
