import type { Endpoint } from "./contract";
import { importToolsEndpoint, listToolCatalogEndpoint, setAllowedToolsEndpoint, setExecutesToolsEndpoint } from "./endpoints/tool-import-api";
import { dryRunGatePolicyEndpoint, getGatePolicyEndpoint, saveGatePolicyEndpoint } from "./gate-policy-endpoints";
import { createDeskEndpoint, getIntentCatalogEndpoint, listDesksEndpoint, saveIntentCatalogEndpoint, updateAgentEndpoint } from "./desk-endpoints";
import * as agentApi from "./endpoints/agent-api";
import * as operatorApi from "./endpoints/operator-api";
import * as adminApi from "./endpoints/admin-api";
import { nextRunEndpoint, parkRunEndpoint, unparkRunEndpoint } from "./endpoints/keyboard-api";
import * as liveApi from "./endpoints/live-api";
import * as demoApi from "./endpoints/demo-api";
import { metricsEndpoint } from "./endpoints/metrics-api";
import { createDeskRuleEndpoint, getDeskRuleEndpoint, guidanceEndpoint, listDeskRulesEndpoint, saveDeskRuleEndpoint } from "./desk-rule-endpoints";
import { getRecordKindEndpoint, listRecordKindsEndpoint, saveRecordKindEndpoint } from "./record-kind-endpoints";
import * as outcomesApi from "./endpoints/outcomes-api";
import * as recordsApi from "./endpoints/records-api";
import * as mcpUpstreamApi from "./endpoints/mcp-upstream-api";
import * as oidcProviderApi from "./endpoints/oidc-provider-api";
import { mcpGatewayEndpoint, undoWrittenStepsEndpoint } from "./endpoints/mcp-gateway-api";
import { createSignatureChallengeEndpoint, getPasskeyRequirementsEndpoint, setPasskeyRequirementEndpoint } from "./endpoints/signature-api";
import { liveHealthEndpoint, readyHealthEndpoint } from "./endpoints/health-api";

/*
 * Every endpoint of the HTTP API (docs/api.md), declared once (lib/api/contract.ts) in
 * ./endpoints/{agent-api,operator-api,admin-api}.ts. A route file under app/api exports
 * `route(<declaration>, handler)`; the OpenAPI document, the typed client and the authorisation
 * matrix read this list.
 */
export * from "./endpoints/common";
export * from "./endpoints/agent-api";
export * from "./endpoints/operator-api";
export * from "./endpoints/admin-api";
export * from "./endpoints/keyboard-api";
export * from "./endpoints/ownership-api";
import * as ownershipApi from "./endpoints/ownership-api";
export * from "./endpoints/live-api";
export * from "./endpoints/demo-api";
export * from "./endpoints/outcomes-api";
export * from "./endpoints/records-api";
export * from "./endpoints/mcp-upstream-api";
export * from "./endpoints/oidc-provider-api";
export * from "./endpoints/mcp-gateway-api";
export * from "./endpoints/signature-api";
export * from "./endpoints/health-api";
export { importToolsEndpoint, listToolCatalogEndpoint, setAllowedToolsEndpoint, setExecutesToolsEndpoint };
export { dryRunGatePolicyEndpoint, getGatePolicyEndpoint, saveGatePolicyEndpoint };
export { createDeskEndpoint, getIntentCatalogEndpoint, listDesksEndpoint, saveIntentCatalogEndpoint, updateAgentEndpoint };
export { createDeskRuleEndpoint, getDeskRuleEndpoint, guidanceEndpoint, listDeskRulesEndpoint, saveDeskRuleEndpoint };
export { getRecordKindEndpoint, listRecordKindsEndpoint, saveRecordKindEndpoint };

const { listTasksEndpoint, openTaskEndpoint, getTaskEndpoint, submitRunEndpoint, getAgentRunEndpoint, agentRunEventsEndpoint, claimStepEndpoint, fenceClaimEndpoint, reportOutcomeEndpoint, agentReviseTaskEndpoint, demoEffectEndpoint, demoPromoteEndpoint } = agentApi;
const { listQueueEndpoint, searchRecordsEndpoint, getRunDetailsEndpoint, submitEditEndpoint, discardEditEndpoint, getEditEndpoint, diffVersionsEndpoint, approveStepsEndpoint, rejectRunEndpoint, reconcileStepEndpoint, runAuditEndpoint, operatorReviseTaskEndpoint, diffCorpusEndpoint } = operatorApi;
const { listUsersEndpoint, createUserEndpoint, getUserEndpoint, updateUserEndpoint, setGrantEndpoint, listAgentsEndpoint, createAgentEndpoint, createApiKeyEndpoint, revokeApiKeyEndpoint, listIntegrationKeysEndpoint, createIntegrationKeyEndpoint, revokeIntegrationKeyEndpoint, openApiEndpoint } = adminApi;

/** Every declared endpoint, in the order docs/api.md lists them. */
export const ENDPOINTS: readonly Endpoint[] = [
  listTasksEndpoint,
  openTaskEndpoint,
  getTaskEndpoint,
  submitRunEndpoint,
  getAgentRunEndpoint,
  agentRunEventsEndpoint,
  claimStepEndpoint,
  fenceClaimEndpoint,
  reportOutcomeEndpoint,
  agentReviseTaskEndpoint,
  demoEffectEndpoint,
  demoPromoteEndpoint,
  guidanceEndpoint,
  mcpGatewayEndpoint,
  undoWrittenStepsEndpoint,
  listQueueEndpoint,
  searchRecordsEndpoint,
  getRunDetailsEndpoint,
  submitEditEndpoint,
  discardEditEndpoint,
  getEditEndpoint,
  diffVersionsEndpoint,
  approveStepsEndpoint,
  createSignatureChallengeEndpoint,
  rejectRunEndpoint,
  reconcileStepEndpoint,
  runAuditEndpoint,
  operatorReviseTaskEndpoint,
  diffCorpusEndpoint,
  nextRunEndpoint,
  parkRunEndpoint,
  unparkRunEndpoint,
  listUsersEndpoint,
  createUserEndpoint,
  getUserEndpoint,
  updateUserEndpoint,
  setGrantEndpoint,
  listAgentsEndpoint,
  createAgentEndpoint,
  updateAgentEndpoint,
  listDesksEndpoint,
  createDeskEndpoint,
  getIntentCatalogEndpoint,
  saveIntentCatalogEndpoint,
  // record kinds a desk declares as data
  listRecordKindsEndpoint,
  getRecordKindEndpoint,
  saveRecordKindEndpoint,
  createApiKeyEndpoint,
  revokeApiKeyEndpoint,
  listIntegrationKeysEndpoint,
  createIntegrationKeyEndpoint,
  revokeIntegrationKeyEndpoint,
  listToolCatalogEndpoint,
  importToolsEndpoint,
  setAllowedToolsEndpoint,
  setExecutesToolsEndpoint,
  // a desk's upstream MCP servers
  mcpUpstreamApi.listMcpUpstreamsEndpoint,
  mcpUpstreamApi.registerMcpUpstreamEndpoint,
  mcpUpstreamApi.disableMcpUpstreamEndpoint,
  mcpUpstreamApi.importMcpUpstreamToolsEndpoint,
  oidcProviderApi.listOidcProvidersEndpoint,
  oidcProviderApi.registerOidcProviderEndpoint,
  oidcProviderApi.disableOidcProviderEndpoint,
  oidcProviderApi.oidcBackchannelLogoutEndpoint,
  getGatePolicyEndpoint,
  saveGatePolicyEndpoint,
  dryRunGatePolicyEndpoint,
  // desk rules made from recurring edits
  listDeskRulesEndpoint,
  createDeskRuleEndpoint,
  getDeskRuleEndpoint,
  saveDeskRuleEndpoint,
  openApiEndpoint,
  // health checks for load balancers (public)
  liveHealthEndpoint,
  readyHealthEndpoint,
  getPasskeyRequirementsEndpoint,
  setPasskeyRequirementEndpoint,
  // ownership
  ...[ownershipApi.takeRunEndpoint, ownershipApi.assignRunEndpoint, ownershipApi.runOwnershipEndpoint, ownershipApi.requestApprovalEndpoint, ownershipApi.suggestStepEndpoint, ownershipApi.acceptSuggestionEndpoint, ownershipApi.declineSuggestionEndpoint, ownershipApi.listNotificationsEndpoint, ownershipApi.markNotificationsReadEndpoint],
  liveApi.liveFeedEndpoint,
  liveApi.recordPresenceEndpoint,
  liveApi.listWebhookFailuresEndpoint,
  // operations: the scraper's metrics
  metricsEndpoint,
  liveApi.retryWebhookEndpoint,
  // did the edit help? ticket events, outcomes, labels
  outcomesApi.ticketEventEndpoint,
  outcomesApi.runOutcomeEndpoint,
  outcomesApi.labelOutcomeEndpoint,
  outcomesApi.outcomeReviewEndpoint,
  // the records door: systems of record push accounts and records
  recordsApi.putRecordEndpoint,
  recordsApi.deleteRecordEndpoint,
  recordsApi.getRecordEndpoint,
  recordsApi.recordBatchEndpoint,
  // demo mode: named scenarios and the reset (last: the reset empties the database)
  demoApi.listScenariosEndpoint,
  demoApi.makeScenarioEndpoint,
  demoApi.resetDemoEndpoint,
];
