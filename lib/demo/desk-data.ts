import { addDays, formatISO } from "date-fns";
import type { DemoDesk } from "./demo-desk";
import { builtinTools, toolNames, type ToolName } from "../tools/builtin-tools";

/** The tools the demo agent may call (its allowlist): every built-in tool, in menu order. */
export const DEMO_AGENT_TOOLS: readonly ToolName[] = toolNames;

const iso = (d: Date) => formatISO(d, { representation: "date" });
const usd = (minor: number) => ({ minor, currency: "USD" as const });

/** Destinations with a holiday calendar. */
export const DESTINATIONS = ["NO-OSL", "DE-HAM", "NL-RTM"] as const;

const ACCOUNTS = [
  ["acc_nordkapp", "Nordkapp Logistics"],
  ["acc_halvorsen", "Halvorsen Freight"],
  ["acc_baltic", "Baltic Reefer Lines"],
  ["acc_rhine", "Rhine Valley Imports"],
  ["acc_fjord", "Fjordline Seafood"],
  ["acc_hanse", "Hanse Parts GmbH"],
  ["acc_delta", "Delta Flowers BV"],
  ["acc_alpine", "Alpine Outdoor AG"],
  ["acc_lumen", "Lumen Electronics"],
  ["acc_oak", "Oakridge Furniture"],
  ["acc_tidal", "Tidal Coffee Roasters"],
  ["acc_polar", "Polar Pharma"],
] as const;

/** Account tags of the demo desk (a gate policy rule may match "accounts in good standing"). */
const ACCOUNT_TAGS: Partial<Record<(typeof ACCOUNTS)[number][0], string[]>> = {
  acc_alpine: ["good_standing"],
  acc_tidal: ["good_standing"],
};

/**
 * The demo freight exceptions desk (a {@link DemoDesk}), built relative to `now` so it never goes
 * stale. Pure data (no I/O); `lib/server/demo/seed.ts` writes it idempotently. Money in USD minor
 * units; dates are ISO `YYYY-MM-DD` in UTC. Source: docs/design.md reference case.
 *
 * Builds the demo desk for `now` (UTC). Deterministic for a given `now`.
 * The reference case: ticket 74991 (Nordkapp Logistics) with a three-step plan; invoice
 * in_74119 of Halvorsen Freight, open, balance 2,120.00 USD (≥ 1,489.00).
 */
export function buildDemoDesk(now: Date): DemoDesk {
  const day = (n: number) => iso(addDays(now, n));
  const accounts = ACCOUNTS.map(([id, name]) => ({ id, name, ...(ACCOUNT_TAGS[id] ? { tags: ACCOUNT_TAGS[id] } : {}) }));

  // Fixed public holidays for this year and next, plus one regional closure per destination
  // relative to now. NO-OSL keeps the next two weeks clear so the reference case's reschedule
  // (a few days ahead, then four days later) never lands on a holiday.
  const holidays: DemoDesk["holidays"] = [];
  const fixed: Record<string, [string, string][]> = {
    "NO-OSL": [["01-01", "New Year's Day"], ["05-01", "Labour Day"], ["05-17", "Constitution Day"], ["12-25", "Christmas Day"], ["12-26", "Boxing Day"]],
    "DE-HAM": [["01-01", "Neujahr"], ["05-01", "Tag der Arbeit"], ["10-03", "Tag der Deutschen Einheit"], ["12-25", "1. Weihnachtstag"], ["12-26", "2. Weihnachtstag"]],
    "NL-RTM": [["01-01", "Nieuwjaarsdag"], ["04-27", "Koningsdag"], ["05-05", "Bevrijdingsdag"], ["12-25", "Eerste Kerstdag"], ["12-26", "Tweede Kerstdag"]],
  };
  const y = now.getUTCFullYear();
  const clearFrom = day(0);
  const clearTo = day(14);
  for (const [dest, list] of Object.entries(fixed)) {
    for (const year of [y, y + 1]) {
      for (const [md, name] of list) {
        const date = `${year}-${md}`;
        if (dest === "NO-OSL" && date >= clearFrom && date <= clearTo) continue;
        holidays.push({ destination: dest, date, name });
      }
    }
  }
  for (const [dest, offset] of [["DE-HAM", 5], ["NL-RTM", 4]] as const) {
    const date = day(offset);
    if (!holidays.some((h) => h.destination === dest && h.date === date)) {
      holidays.push({ destination: dest, date, name: "Port closure (strike notice)" });
    }
  }

  const invoices: DemoDesk["invoices"] = [];
  const inv = (id: string, accountId: string, total: number, open: number, status: "open" | "paid" | "void", fees: [string, number][] = [], dueIn = 14) =>
    invoices.push({ id, accountId, status, totalMinor: total, openMinor: open, fees: fees.map(([code, m]) => ({ code, amount: usd(m) })), dueDate: day(dueIn) });

  inv("in_74102", "acc_nordkapp", 389000, 389000, "open", [["REDELIVERY", 12500]]);
  inv("in_73980", "acc_nordkapp", 152000, 0, "paid", [], -20);
  inv("in_74119", "acc_halvorsen", 212000, 212000, "open", [["DETENTION", 18000]]);
  inv("in_74120", "acc_halvorsen", 98000, 0, "paid", [], -10);
  inv("in_73990", "acc_halvorsen", 45500, 45500, "open", [["LATE_FEE", 4500]], -3);
  inv("in_74201", "acc_baltic", 560000, 560000, "open", [["REEFER_PLUGIN", 22000]]);
  inv("in_74202", "acc_baltic", 87000, 0, "paid", [], -15);
  inv("in_74203", "acc_baltic", 129900, 64950, "open");
  inv("in_74310", "acc_rhine", 240000, 240000, "open");
  inv("in_74311", "acc_rhine", 240000, 240000, "open"); // duplicate charge
  inv("in_74312", "acc_rhine", 51000, 0, "paid", [], -30);
  inv("in_74401", "acc_fjord", 318000, 318000, "open", [["LATE_FEE", 7500]]);
  inv("in_74402", "acc_fjord", 99000, 0, "paid", [], -12);
  inv("in_74403", "acc_fjord", 120000, 120000, "open");
  inv("in_74501", "acc_hanse", 178000, 178000, "open", [["LATE_FEE", 8900], ["STORAGE", 15000]]);
  inv("in_74502", "acc_hanse", 64000, 0, "paid", [], -25);
  inv("in_74503", "acc_hanse", 33000, 33000, "open");
  inv("in_74601", "acc_delta", 275000, 275000, "open", [["REEFER_PLUGIN", 18000]]);
  inv("in_74602", "acc_delta", 41000, 0, "paid", [], -8);
  inv("in_74603", "acc_delta", 69000, 69000, "open");
  inv("in_74701", "acc_alpine", 133000, 133000, "open", [["STORAGE", 24000]]);
  inv("in_74702", "acc_alpine", 86000, 0, "paid", [], -18);
  inv("in_74703", "acc_alpine", 22000, 22000, "open");
  inv("in_74801", "acc_lumen", 419900, 419900, "open");
  inv("in_74802", "acc_lumen", 419900, 419900, "open"); // duplicate charge
  inv("in_74803", "acc_lumen", 77000, 0, "paid", [], -40);
  inv("in_74901", "acc_oak", 265000, 265000, "open", [["REDELIVERY", 9500]]);
  inv("in_74902", "acc_oak", 54000, 0, "paid", [], -22);
  inv("in_74903", "acc_oak", 18000, 18000, "open");
  inv("in_75001", "acc_tidal", 142000, 142000, "open");
  inv("in_75002", "acc_tidal", 38000, 0, "paid", [], -9);
  inv("in_75003", "acc_tidal", 91000, 91000, "open", [["LATE_FEE", 3500]]);
  inv("in_75101", "acc_polar", 880000, 880000, "open", [["CUSTOMS_STORAGE", 36000]]);
  inv("in_75102", "acc_polar", 120000, 0, "paid", [], -14);
  inv("in_75103", "acc_polar", 45000, 45000, "open");
  inv("in_75104", "acc_polar", 15000, 0, "void", [], -5);
  inv("in_74121", "acc_halvorsen", 310000, 155000, "open");
  inv("in_74204", "acc_baltic", 72000, 72000, "open", [["LATE_FEE", 6000]]);
  inv("in_74604", "acc_delta", 150000, 0, "paid", [], -6);
  inv("in_74804", "acc_lumen", 26000, 26000, "open", [["STORAGE", 5000]]);

  const shipments: DemoDesk["shipments"] = [];
  const sh = (id: string, accountId: string, destination: string, from: number, to: number, status: DemoDesk["shipments"][number]["status"], address: string) =>
    shipments.push({ id, accountId, destination, windowFrom: day(from), windowTo: day(to), status, address });
  sh("sh_5521", "acc_nordkapp", "NO-OSL", 2, 2, "in_transit", "Kongsveien 12, 0193 Oslo");
  sh("sh_5522", "acc_nordkapp", "DE-HAM", 6, 7, "scheduled", "Am Sandtorkai 1, 20457 Hamburg");
  sh("sh_5530", "acc_halvorsen", "NO-OSL", 3, 4, "in_transit", "Havnegata 4, 0150 Oslo");
  sh("sh_5531", "acc_halvorsen", "NL-RTM", 8, 9, "scheduled", "Waalhaven Z.z. 20, 3089 Rotterdam");
  sh("sh_5540", "acc_baltic", "DE-HAM", 1, 2, "in_transit", "Kuehnehöfe 5, 22761 Hamburg");
  sh("sh_5541", "acc_baltic", "NL-RTM", 5, 6, "held", "Maasvlakte Plaza 1, 3199 Rotterdam");
  sh("sh_5550", "acc_rhine", "DE-HAM", 9, 10, "scheduled", "Große Elbstraße 27, 22767 Hamburg");
  sh("sh_5560", "acc_fjord", "NO-OSL", 1, 1, "in_transit", "Akershusstranda 19, 0150 Oslo");
  sh("sh_5561", "acc_fjord", "NL-RTM", 3, 3, "delivered", "Stieltjesweg 2, 3071 Rotterdam");
  sh("sh_5570", "acc_hanse", "DE-HAM", 4, 6, "scheduled", "Ludwig-Erhard-Str. 18, 20459 Hamburg");
  sh("sh_5580", "acc_delta", "NL-RTM", 2, 2, "in_transit", "Veilingweg 1, 2675 Honselersdijk");
  sh("sh_5581", "acc_delta", "DE-HAM", 7, 7, "scheduled", "Lagerstraße 11, 20357 Hamburg");
  sh("sh_5590", "acc_alpine", "DE-HAM", 5, 8, "scheduled", "Spaldingstraße 64, 20097 Hamburg");
  sh("sh_5600", "acc_lumen", "NL-RTM", 3, 4, "in_transit", "Marconistraat 16, 3029 Rotterdam");
  sh("sh_5610", "acc_oak", "NO-OSL", 6, 6, "scheduled", "Drammensveien 60, 0271 Oslo");
  sh("sh_5611", "acc_oak", "DE-HAM", 10, 11, "scheduled", "Billstraße 80, 20539 Hamburg");
  sh("sh_5620", "acc_tidal", "NL-RTM", 2, 3, "delivered", "Koffieweg 8, 3087 Rotterdam");
  sh("sh_5630", "acc_polar", "NO-OSL", 4, 4, "held", "Gaustadalléen 21, 0349 Oslo");
  sh("sh_5631", "acc_polar", "DE-HAM", 12, 13, "scheduled", "Pharmapark 3, 21079 Hamburg");
  sh("sh_5640", "acc_nordkapp", "NL-RTM", 11, 12, "scheduled", "Europaweg 875, 3199 Rotterdam");
  sh("sh_5650", "acc_rhine", "NL-RTM", 3, 5, "in_transit", "Nieuwe Waalhaven 4, 3089 Rotterdam");
  sh("sh_5660", "acc_lumen", "DE-HAM", 8, 8, "scheduled", "Heidenkampsweg 51, 20097 Hamburg");
  sh("sh_5670", "acc_alpine", "NO-OSL", 9, 10, "scheduled", "Stortingsgata 30, 0161 Oslo");
  sh("sh_5680", "acc_tidal", "DE-HAM", 13, 14, "scheduled", "Überseeallee 10, 20457 Hamburg");
  sh("sh_5690", "acc_hanse", "NO-OSL", 7, 8, "scheduled", "Lilleakerveien 2, 0283 Oslo");

  const tickets: DemoDesk["tickets"] = [
    ["74991", "acc_nordkapp", "Delivery to Oslo missed its window", "Consignment sh_5521 was due today and the driver did not arrive. Customer needs it delivered in the next few days and a written confirmation of the new date.", 3],
    ["74992", "acc_fjord", "Damaged pallets on arrival (seafood)", "Two of six pallets on invoice in_74401 arrived with broken cold seals. Customer asks for a refund of the damaged share (2 of 6 pallets).", 5],
    ["74993", "acc_lumen", "Charged twice for the same shipment", "Invoices in_74801 and in_74802 are for the same consignment sh_5600. Customer asks for the duplicate to be refunded.", 7],
    ["74994", "acc_oak", "New delivery address for Oslo drop", "Customer moved their warehouse; shipment sh_5610 needs a later window to re-route.", 2],
    ["74995", "acc_polar", "Customs hold at Oslo — temperature-controlled", "Shipment sh_5630 is held by customs pending a certificate. Customer wants status and escalation.", 9],
    ["74996", "acc_hanse", "Disputes late fee on in_74501", "Customer paid on the due date by bank transfer; the late fee was charged in error.", 26],
    ["74997", "acc_baltic", "Reefer delivery two days late", "Shipment sh_5540 ran late. Contract grants a service credit for late reefer deliveries.", 4],
    ["74998", "acc_delta", "Flowers at risk — delay at Rotterdam", "Shipment sh_5580 is delayed; perishable. Customer wants the earliest possible window and compensation per contract.", 1],
    ["74999", "acc_alpine", "Storage fee after port closure", "Storage fee on in_74701 accrued while the terminal was closed. Customer asks to waive it.", 30],
    ["75000", "acc_rhine", "Duplicate invoice in_74311", "in_74311 duplicates in_74310. Customer asks to cancel the duplicate and refund it if paid.", 6],
    ["75001", "acc_tidal", "Crushed coffee sacks", "Three sacks arrived crushed on sh_5620. Photos attached. Customer asks for a claim.", 11],
    ["75002", "acc_halvorsen", "Move Oslo delivery one day later", "Receiving dock closed on the planned day; please move sh_5530 by one day.", 2],
    ["75003", "acc_baltic", "Customs hold in Rotterdam", "Shipment sh_5541 held at Rotterdam customs; documents resubmitted.", 8],
    ["75004", "acc_fjord", "Change delivery contact", "New contact for Oslo deliveries; please note it on the account.", 3],
    ["75005", "acc_alpine", "Asks for goodwill credit", "Customer unhappy with delays this quarter; wants to know if we can do anything.", 10],
    ["75006", "acc_nordkapp", "Hamburg window confirmation", "Confirm sh_5522 window with the customer.", 14],
    ["75007", "acc_halvorsen", "Detention charge question", "Customer asks what the detention fee on in_74119 covers.", 20],
    ["75008", "acc_lumen", "Storage fee on in_74804", "Customer asks about the storage fee.", 40],
    ["75009", "acc_oak", "Redelivery fee dispute", "Redelivery fee on in_74901; customer says first attempt was never made.", 33],
    ["75010", "acc_tidal", "Late fee on in_75003", "Customer disputes the late fee.", 50],
    ["75011", "acc_polar", "Certificate uploaded", "Customer uploaded the missing certificate.", 60],
    ["75012", "acc_delta", "Invoice copy requested", "Customer needs a copy of in_74603.", 70],
    ["75013", "acc_rhine", "Rotterdam ETA", "Customer asks for ETA of sh_5650.", 12],
    ["75014", "acc_hanse", "Oslo delivery slot", "Customer wants a morning slot for sh_5690.", 16],
    ["75015", "acc_baltic", "Reefer plug-in fee", "Question on REEFER_PLUGIN fee of in_74201.", 45],
    ["75016", "acc_fjord", "Thanks for the quick help", "Customer says thanks; close when done.", 80],
    ["75017", "acc_alpine", "Oslo shipment docs", "Customer sends packing list for sh_5670.", 90],
    ["75018", "acc_lumen", "Hamburg delivery contact", "New receiving contact for sh_5660.", 24],
    ["75019", "acc_nordkapp", "Rotterdam booking", "Booking confirmation for sh_5640.", 36],
    ["75020", "acc_polar", "Hamburg cold chain", "Confirm cold chain for sh_5631.", 48],
  ].map(([id, accountId, subject, body, ageHours]) => ({
    id: id as string,
    accountId: accountId as string,
    subject: subject as string,
    body: body as string,
    ageHours: ageHours as number,
  }));

  const ctx = {
    now,
    day,
    longDate: (n: number) => addDays(now, n).toLocaleDateString("en-US", { weekday: "long", month: "long", day: "numeric", timeZone: "UTC" }),
  };
  // Each built-in tool brings its own scenarios (and any records they need): lib/tools/<tool>/tool.ts `seed.demo`.
  const runs: DemoDesk["runs"] = [];
  for (const tool of builtinTools()) {
    const extra = tool.seed.demo.records?.(ctx) ?? {};
    tickets.push(...(extra.tickets ?? []));
    shipments.push(...(extra.shipments ?? []));
    invoices.push(...(extra.invoices ?? []));
    runs.push(...tool.seed.demo.runs(ctx));
  }

  return { accounts, tickets, invoices, shipments, holidays, runs };
}
