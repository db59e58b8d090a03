/**
 * docs/security.md "Limits and what exceeding them answers" lists every limit with the number the
 * code enforces: each constant below must appear, spelled as that section spells it (so changing a
 * limit without the docs fails here). The date horizon is a gate-policy setting: the section names
 * its default, the range a rule may set and both issues.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_ADDRESS_CHARS, MAX_ROUTE_CHARS, ORIGIN_PREFIX_CHARS } from "../lib/server/audit-log/refusal-counts";
import { MAX_RECORDED_CHARS } from "../lib/server/audit-log/append-audit";
import { DATABASE_RETRY_AFTER_SECONDS, MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../lib/server/http/http";
import { MAX_WAIT_SECONDS } from "../lib/server/runs/wait-for-run";
import { RUN_STREAM_MAX_SECONDS } from "../lib/server/runs/run-events";
import { MAX_PLAN_STEPS } from "../lib/plan/schema";
import { MAX_PLAN_READS } from "../lib/reads/schema";
import { MAX_TOOLS_PER_IMPORT } from "../lib/tools/json-schema-tool";
import { MAX_MONEY_MINOR } from "../lib/money/money";
import { MAX_STORED_MINOR } from "../lib/people/admin-schemas";
import { MAX_DATE_HORIZON_DAYS, MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS, IRREVERSIBLE_EXPIRY_SECONDS, RESCHEDULE_HORIZON_DAYS } from "../lib/plan/policy";
import { MAX_PARTS_PER_REVISION, MAX_PART_TEXT } from "../lib/task-contract/schema";
import { DEFAULT_RECORDS_BATCH_MAX_BYTES, MAX_BODY_BYTES as SERVER_MAX_BODY_BYTES } from "../lib/net/body-limit.mjs";
import { DEFAULT_AUTH_FAILURE_BURST, DEFAULT_AUTH_FAILURE_RATE, DEFAULT_AGENT_BURST, DEFAULT_AGENT_RATE, DEFAULT_INTEGRATION_BURST, DEFAULT_INTEGRATION_RATE, DEFAULT_PERSON_BURST, DEFAULT_PERSON_RATE } from "../lib/server/config/config";

const doc = fs.readFileSync(path.resolve(__dirname, "..", "docs", "security.md"), "utf8");
const start = doc.indexOf("## Limits and what exceeding them answers");
const end = doc.indexOf("\n## ", start + 1);
const section = doc.slice(start, end < 0 ? undefined : end);
const n = (x: number) => x.toLocaleString("en-US");

describe("docs/security.md \"Limits and what exceeding them answers\"", () => {
  it("exists", () => {
    expect(start).toBeGreaterThan(0);
  });

  it.each([
    ["MAX_BODY_BYTES", `limitBytes: ${MAX_BODY_BYTES}`],
    ["MAX_BODY_BYTES in words", `${MAX_BODY_BYTES / (1024 * 1024)} MiB`],
    ["MAX_JSON_DEPTH", `limitDepth: ${MAX_JSON_DEPTH}`],
    ["the custom server's body limit (lib/net/body-limit.mjs MAX_BODY_BYTES)", `before Next.js: ${SERVER_MAX_BODY_BYTES / (1024 * 1024)} MiB`],
    ["DEFAULT_RECORDS_BATCH_MAX_BYTES", `${DEFAULT_RECORDS_BATCH_MAX_BYTES / (1024 * 1024)} MiB for \`POST /api/v1/records/batch\` (\`PLANDESK_RECORDS_BATCH_MAX_BYTES\`)`],
    ["DATABASE_RETRY_AFTER_SECONDS", `Retry-After: ${DATABASE_RETRY_AFTER_SECONDS}`],
    ["the agent keys' rate limit (DEFAULT_AGENT_BURST, DEFAULT_AGENT_RATE)", `each agent API key ${n(DEFAULT_AGENT_BURST)} at once, then ${n(DEFAULT_AGENT_RATE)} per second (\`PLANDESK_AGENT_BURST\`, \`PLANDESK_AGENT_RATE\`)`],
    ["the integration keys' rate limit (DEFAULT_INTEGRATION_BURST, DEFAULT_INTEGRATION_RATE)", `each integration key ${n(DEFAULT_INTEGRATION_BURST)}, then ${n(DEFAULT_INTEGRATION_RATE)} per second (\`PLANDESK_INTEGRATION_BURST\`, \`PLANDESK_INTEGRATION_RATE\`)`],
    ["the people's rate limit (DEFAULT_PERSON_BURST, DEFAULT_PERSON_RATE)", `each person on the console API ${n(DEFAULT_PERSON_BURST)}, then ${n(DEFAULT_PERSON_RATE)} per second (\`PLANDESK_PERSON_BURST\`, \`PLANDESK_PERSON_RATE\`)`],
    ["the refused credentials' limit (DEFAULT_AUTH_FAILURE_BURST, DEFAULT_AUTH_FAILURE_RATE)", `each client address ${n(DEFAULT_AUTH_FAILURE_BURST)} at once, then ${n(DEFAULT_AUTH_FAILURE_RATE)} per second (\`PLANDESK_AUTH_FAILURE_BURST\`, \`PLANDESK_AUTH_FAILURE_RATE\`)`],
    ["the rate limit's answer", "`429 rate_limited {retryAfterSeconds}` with `Retry-After`"],
    ["MAX_PLAN_STEPS", `at most ${MAX_PLAN_STEPS} steps per plan`],
    ["MAX_PLAN_READS", `at most ${MAX_PLAN_READS} read steps`],
    ["MAX_TOOLS_PER_IMPORT", `limit: ${MAX_TOOLS_PER_IMPORT}`],
    ["MAX_WAIT_SECONDS", `at most ${MAX_WAIT_SECONDS} s`],
    ["RUN_STREAM_MAX_SECONDS", `at most ${RUN_STREAM_MAX_SECONDS / 60} minutes`],
    ["MAX_ADDRESS_CHARS", `address ${MAX_ADDRESS_CHARS} characters`],
    ["MAX_ROUTE_CHARS", `route ${MAX_ROUTE_CHARS}`],
    ["ORIGIN_PREFIX_CHARS", `its first ${ORIGIN_PREFIX_CHARS}`],
    ["MAX_RECORDED_CHARS", `${MAX_RECORDED_CHARS} characters, NUL shown as`],
    ["MAX_MONEY_MINOR", `${n(MAX_MONEY_MINOR)} minor units`],
    ["MAX_STORED_MINOR", `${n(MAX_STORED_MINOR)} minor units`],
    ["MIN_EXPIRY_SECONDS – MAX_EXPIRY_SECONDS", `${MIN_EXPIRY_SECONDS} s – ${MAX_EXPIRY_SECONDS / 3600} h`],
    ["IRREVERSIBLE_EXPIRY_SECONDS", `${IRREVERSIBLE_EXPIRY_SECONDS / 3600} h with an irreversible step`],
    ["MAX_PARTS_PER_REVISION, MAX_PART_TEXT", `${MAX_PARTS_PER_REVISION} task text parts of ${n(MAX_PART_TEXT)}`],
    ["the date horizon's default (RESCHEDULE_HORIZON_DAYS)", `a date horizon (gate-policy setting, default ${RESCHEDULE_HORIZON_DAYS} days)`],
    ["the date horizon's range (MAX_DATE_HORIZON_DAYS)", `\`dateHorizonDays\` (1–${n(MAX_DATE_HORIZON_DAYS)})`],
    ["the date horizon's issues", "`window_beyond_horizon` / `date_beyond_horizon` (error)"],
  ])("names %s as the code has it", (_name, text) => {
    expect(section).toContain(text);
  });
});
