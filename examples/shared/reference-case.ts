/**
 * The reference case every example plays (ticket #74991, task `task_74991` of the demo desk):
 * the driver missed the Oslo delivery window of shipment sh_5521, so the agent adds a note,
 * reschedules the delivery a few days ahead and replies to the customer. The examples' mock
 * models propose exactly these calls, with the agent's reasons for each step. No imports beyond
 * the client package and the frameworks: the examples also run from a project that installed
 * the packed package (scripts/outside-proof.mjs).
 */

/** One scripted tool call: framework call id, Plandesk tool, arguments and the model's reasons. */
export interface ScriptedCall {
  callId: string;
  tool: "add_ticket_note" | "reschedule_delivery" | "send_reply";
  args: Record<string, unknown>;
}

/** The three calls of the reference case for `now` (UTC): the delivery moves to now + `daysAhead` (default 3). */
export function referenceCalls(now = new Date(), daysAhead = 3): ScriptedCall[] {
  const d = new Date(now);
  d.setDate(d.getDate() + daysAhead);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  return [
    {
      callId: "call_note",
      tool: "add_ticket_note",
      args: {
        ticketId: "74991",
        note: "Driver missed the Oslo window for sh_5521; rebooking with the carrier.",
        stepReasons: { title: "Record the missed delivery" },
      },
    },
    {
      callId: "call_resched",
      tool: "reschedule_delivery",
      args: {
        shipmentId: "sh_5521",
        window: { from: day, to: day },
        reason: "Missed delivery window; next available slot.",
        stepReasons: {
          title: "Rebook the delivery",
          rationale: "The driver missed today's window and the customer needs the consignment within the next few days.",
          evidence: [{ recordType: "shipment", recordId: "sh_5521" }, { recordType: "ticket", recordId: "74991" }],
          risk: "The carrier may have no slot that day.",
          stopCondition: "Do not move the window if sh_5521 was delivered meanwhile.",
        },
      },
    },
    {
      callId: "call_reply",
      tool: "send_reply",
      args: {
        ticketId: "74991",
        body: "Hello, we are sorry the delivery was missed. Your consignment is rebooked with the carrier, and we will confirm the new date in writing once it is on the truck.",
        stepReasons: {
          title: "Tell the customer",
          rationale: "The customer asked for a written confirmation of the new date.",
          evidence: [{ recordType: "ticket", recordId: "74991" }],
        },
      },
    },
  ];
}

/** What the agent is asked (the user message of the examples). */
export const REFERENCE_PROMPT =
  "Ticket #74991 (Nordkapp Logistics): consignment sh_5521 was due today in Oslo and the driver did not arrive. The customer needs it delivered in the next few days and a written confirmation of the new date.";

/** Command-line options shared by the examples: `--url`, `--key`, `--task`, `--days`, `--poll-ms`, `--timeout-s`. */
export interface ExampleOptions {
  url: string;
  key: string;
  taskId: string;
  daysAhead: number;
  pollMs: number;
  timeoutSeconds: number;
}

/** Parses `process.argv.slice(2)`; throws Error with the usage for anything unknown. */
export function parseExampleArgs(argv: string[], name: string): ExampleOptions {
  const usage = `Usage: npx tsx examples/${name}/index.ts --url http://localhost:3000 --key pd_demo_agent_key [--task task_74991] [--days 3] [--poll-ms 500] [--timeout-s 600]`;
  const o: ExampleOptions = {
    url: process.env.PLANDESK_URL ?? "http://localhost:3000",
    key: process.env.PLANDESK_AGENT_KEY ?? "pd_demo_agent_key",
    taskId: "task_74991",
    daysAhead: 3,
    pollMs: 500,
    timeoutSeconds: 600,
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    const num = () => {
      const n = Number(v);
      if (v === undefined || !Number.isFinite(n) || n < 0) throw new Error(`${argv[i]} needs a number.\n${usage}`);
      i++;
      return n;
    };
    switch (argv[i]) {
      case "--url":
        o.url = v;
        i++;
        break;
      case "--key":
        o.key = v;
        i++;
        break;
      case "--task":
        o.taskId = v;
        i++;
        break;
      case "--days":
        o.daysAhead = num();
        break;
      case "--poll-ms":
        o.pollMs = num();
        break;
      case "--timeout-s":
        o.timeoutSeconds = num();
        break;
      default:
        throw new Error(`Unknown argument "${argv[i]}".\n${usage}`);
    }
  }
  if (!o.url || !o.key || !o.taskId) throw new Error(usage);
  return o;
}

/** Prints one line of the example's output, prefixed with the time (UTC) and `tag`. */
export function say(tag: string, line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} [${tag}] ${line}\n`);
}
