/**
 * Declarations of the demo-mode endpoints QA suites use (docs/testing.md): the catalog of named
 * scenarios, making one, and resetting the demo desk. Outside demo mode each answers 404
 * `not_found`, like any unknown path.
 */
import { z } from "zod";
import { defineEndpoint } from "../contract";
import { ADMIN, PEOPLE } from "./common";

/** What a made scenario answers: the ids a test goes on with (lib/server/scenarios/scenarios.ts). */
export const scenarioResultSchema = z.object({
  scenario: z.string(),
  runIds: z.array(z.string()),
  taskIds: z.array(z.string()),
  ticketIds: z.array(z.string()),
  refs: z.record(z.string(), z.union([z.string(), z.number()])),
  expect: z.string(),
});

export const listScenariosEndpoint = defineEndpoint({
  id: "listScenarios",
  method: "GET",
  path: "/api/demo/scenarios",
  summary: "Demo mode: the named scenarios a QA suite can make",
  caller: PEOPLE,
  success: { status: [200], schema: z.object({ scenarios: z.array(z.object({ name: z.string(), description: z.string() })) }), description: "{scenarios: [{name, description}]}" },
  refusals: ["not_found"],
});

export const makeScenarioEndpoint = defineEndpoint({
  id: "makeScenario",
  method: "POST",
  path: "/api/demo/scenarios/{name}",
  summary: "Demo mode: make a named scenario on the demo desk (a fresh run each time) and answer the ids it made",
  caller: PEOPLE,
  params: z.object({ name: z.string().min(1).max(64) }),
  success: { status: [201], schema: scenarioResultSchema, description: "{scenario, runIds, taskIds, ticketIds, refs, expect}" },
  refusals: ["not_found"],
});

export const resetDemoEndpoint = defineEndpoint({
  id: "resetDemo",
  method: "POST",
  path: "/api/demo/reset",
  summary: "Demo mode, admins: reset the database to the freshly seeded demo desk (the demo people's sign-ins stay valid)",
  caller: ADMIN,
  success: {
    status: [200],
    schema: z.object({ reset: z.object({ ms: z.number().int(), emptyMs: z.number().int(), restored: z.boolean(), seeded: z.object({ accounts: z.number().int(), tickets: z.number().int(), invoices: z.number().int(), shipments: z.number().int(), runs: z.number().int() }) }) }),
    description: `{reset: {ms, emptyMs, restored, seeded}}: restored is true when the seeded desk came back from this process's snapshot of it (docs/testing.md "Reset")`,
  },
  refusals: ["not_found"],
});
