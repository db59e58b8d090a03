import type { ReferenceWrite } from "../reference-write";
import type { ApplyCreditArgs } from "./tool";

/** The reference write of `apply_credit`: recorded only (the demo desk keeps no account balance). */
export const writeApplyCredit: ReferenceWrite<ApplyCreditArgs> = async (_tx, { accountId, amount }) => ({
  summary: `Recorded a credit of ${amount.minor} ${amount.currency} minor units for ${accountId} (the demo desk keeps no account balance).`,
  record: null,
});
