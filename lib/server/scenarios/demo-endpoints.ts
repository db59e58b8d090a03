import { DomainError } from "../../errors/domain-error";
import { serverConfig } from "../config/config";
import { resetDemoDesk } from "./reset-demo";
import { listScenarios, makeScenario, type ScenarioResult } from "./scenarios";

/**
 * The demo-mode endpoints' services (docs/testing.md): outside demo mode (PLANDESK_DEMO=0) each
 * refuses with 404 `not_found`, the answer of a path that does not exist, so a production desk
 * neither offers nor reveals them. Role checks are the route declarations' (people for
 * scenarios, admins for the reset).
 */
function requireDemoMode(): void {
  if (!serverConfig().demo) throw new DomainError("not_found", "Not found.");
}

/** The scenario catalog (names and descriptions). Errors: 404 outside demo mode. */
export function demoScenarios(): ReturnType<typeof listScenarios> {
  requireDemoMode();
  return listScenarios();
}

/** Makes scenario `name` now. Errors: 404 outside demo mode or for an unknown name. */
export async function makeDemoScenario(name: string): Promise<ScenarioResult> {
  requireDemoMode();
  return makeScenario(name, new Date());
}

/** Resets the demo desk now. Errors: 404 outside demo mode. */
export async function resetDemo(): Promise<Awaited<ReturnType<typeof resetDemoDesk>>> {
  requireDemoMode();
  return resetDemoDesk(new Date());
}
