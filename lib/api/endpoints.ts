import type { Endpoint } from "./contract";
import { importToolsEndpoint, listToolCatalogEndpoint, setAllowedToolsEndpoint } from "./tool-catalog-endpoints";
import * as agentApi from "./endpoints/agent-api";
import * as operatorApi from "./endpoints/operator-api";
import * as adminApi from "./endpoints/admin-api";
import * as liveApi from "./endpoints/live-api";

/*
 * Every endpoint of the HTTP API (API.md), declared once (lib/api/contract.ts) in
 * ./endpoints/{agent-api,operator-api,admin-api}.ts. A route file under app/api exports
 * `route(<declaration>, handler)`; the OpenAPI document, the typed client and the authorisation
 * matrix read this list.
 */
export * from "./endpoints/common";
export * from "./endpoints/agent-api";
export * from "./endpoints/operator-api";
export * from "./endpoints/admin-api";
export * from "./endpoints/live-api";
export { importToolsEndpoint, listToolCatalogEndpoint, setAllowedToolsEndpoint };

const { listTasksEndpoint, getTaskEndpoint, submitRunEndpoint, getAgentRunEndpoint, claimStepEndpoint, fenceClaimEndpoint, reportOutcomeEndpoint, agentReviseTaskEndpoint, demoEffectEndpoint } = agentApi;
const { listQueueEndpoint, searchRecordsEndpoint, getRunDetailsEndpoint, submitEditEndpoint, discardEditEndpoint, getEditEndpoint, diffVersionsEndpoint, approveStepsEndpoint, rejectRunEndpoint, reconcileStepEndpoint, runAuditEndpoint, operatorReviseTaskEndpoint, diffCorpusEndpoint } = operatorApi;
const { listUsersEndpoint, createUserEndpoint, getUserEndpoint, updateUserEndpoint, setGrantEndpoint, listAgentsEndpoint, createAgentEndpoint, createApiKeyEndpoint, revokeApiKeyEndpoint, listIntegrationKeysEndpoint, createIntegrationKeyEndpoint, revokeIntegrationKeyEndpoint, openApiEndpoint } = adminApi;

/** Every declared endpoint, in the order API.md lists them. */
export const ENDPOINTS: readonly Endpoint[] = [
  listTasksEndpoint,
  getTaskEndpoint,
  submitRunEndpoint,
  getAgentRunEndpoint,
  claimStepEndpoint,
  fenceClaimEndpoint,
  reportOutcomeEndpoint,
  agentReviseTaskEndpoint,
  demoEffectEndpoint,
  listQueueEndpoint,
  searchRecordsEndpoint,
  getRunDetailsEndpoint,
  submitEditEndpoint,
  discardEditEndpoint,
  getEditEndpoint,
  diffVersionsEndpoint,
  approveStepsEndpoint,
  rejectRunEndpoint,
  reconcileStepEndpoint,
  runAuditEndpoint,
  operatorReviseTaskEndpoint,
  diffCorpusEndpoint,
  listUsersEndpoint,
  createUserEndpoint,
  getUserEndpoint,
  updateUserEndpoint,
  setGrantEndpoint,
  listAgentsEndpoint,
  createAgentEndpoint,
  createApiKeyEndpoint,
  revokeApiKeyEndpoint,
  listIntegrationKeysEndpoint,
  createIntegrationKeyEndpoint,
  revokeIntegrationKeyEndpoint,
  listToolCatalogEndpoint,
  importToolsEndpoint,
  setAllowedToolsEndpoint,
  openApiEndpoint,
  liveApi.liveFeedEndpoint,
  liveApi.recordPresenceEndpoint,
  liveApi.listWebhookFailuresEndpoint,
  liveApi.retryWebhookEndpoint,
];
