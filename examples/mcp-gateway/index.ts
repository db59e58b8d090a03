/**
 * The carrier's MCP tools called through Plandesk's MCP gateway with the official MCP SDK client
 * (./agent.ts): a read passes at once, the redelivery waits for a person, Plandesk calls the
 * carrier with exactly what was approved, once. Against the demo desk right after `npm start`:
 *
 *   npx tsx examples/mcp-gateway/index.ts --url http://localhost:3000 --key pd_demo_agent_key
 *
 * Approve the held run in the console (e.g. as senior@plandesk.test); the example then prints the
 * carrier's own answer.
 */
import { randomUUID } from "node:crypto";
import { parseExampleArgs, say } from "../shared/reference-case";
import { runGatewayAgent } from "./agent";

async function main() {
  const opts = parseExampleArgs(process.argv.slice(2), "mcp-gateway");
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + opts.daysAhead);
  const outcome = await runGatewayAgent({
    url: opts.url,
    key: opts.key,
    taskId: opts.taskId,
    shipmentId: "sh_5531",
    date: d.toISOString().slice(0, 10),
    pollMs: Math.max(opts.pollMs, 1000),
    timeoutMs: opts.timeoutSeconds * 1000,
    idempotencyKey: `mcp-example-${randomUUID()}`,
    log: (line) => say("agent", line),
  });
  if (outcome.final.kind !== "result") process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
