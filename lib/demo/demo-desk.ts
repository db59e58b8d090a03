import type { ShipmentStatus } from "../desk/snapshot";
import type { StepInput } from "../plan/schema";

/**
 * The shape of a demo desk's data (the freight desk of ./desk-data.ts, the retail desk of
 * ./retail-desk.ts), apart from the data so that tool modules can describe their seed rows
 * without importing the desk that lists them. Money in USD minor units; dates ISO `YYYY-MM-DD`, UTC.
 */
export interface DemoDesk {
  /** `tags`: account tags gate policy rules can match, e.g. "good_standing". */
  accounts: { id: string; name: string; tags?: string[] }[];
  tickets: { id: string; accountId: string; subject: string; body: string; ageHours: number }[];
  invoices: {
    id: string;
    accountId: string;
    status: "open" | "paid" | "void";
    totalMinor: number;
    openMinor: number;
    fees: { code: string; amount: { minor: number; currency: "USD" } }[];
    dueDate: string;
  }[];
  shipments: {
    id: string;
    accountId: string;
    destination: string;
    windowFrom: string;
    windowTo: string;
    status: ShipmentStatus;
    address: string;
  }[];
  holidays: { destination: string; date: string; name: string }[];
  runs: { key: string; ticketId: string; scenario: string; ageHours: number; steps: StepInput[] }[];
}

