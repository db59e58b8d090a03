/**
 * `@plandesk/client`: the typed client of Plandesk's agent and executor API, the claim → fence →
 * write → outcome helper, the framework-independent adapter core (propose, wait, execute through
 * claims), gated tools, and the connection to Plandesk's MCP gateway (`mcpGatewayConnection`,
 * `readGatewayAnswer`). The framework adapters are subpath exports (`/ai-sdk`,
 * `/openai-agents`, `/langgraph`, `/langchain`), the demo desk's tools `/demo`, the Playwright
 * fixtures and page objects `/testing`.
 */
export * from "./client.js";
export type { WatchEnd, WatchOptions } from "./watch-run.js";
export * from "./execute-step.js";
export * from "./digest.js";
export * from "./canonical-json.js";
export * from "./tool-schemas.js";
export * from "./mcp-gateway.js";
export * from "./adapters/core.js";
export * from "./adapters/gated-tool.js";
export type { AdapterOptions, AdapterProposal } from "./adapters/adapter-session.js";
