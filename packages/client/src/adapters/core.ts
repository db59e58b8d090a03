/**
 * The framework-independent half of Plandesk's agent adapters: what the Vercel AI
 * SDK, OpenAI Agents, LangGraph and LangChain adapters (./ai-sdk.ts, ./openai-agents.ts, ./langgraph.ts, ./langchain.ts)
 * share. Plain TypeScript over the typed client (../client.ts); no framework import.
 *
 * The chain, for the tool calls a framework holds for approval:
 * 1. {@link proposePlan} — the pending calls for one task become ONE Plandesk run (the whole
 *    pending plan, in order), bound to the task's current revision. Each call keeps its
 *    framework call id; the step id is derived from it ({@link stepIdForCall}).
 * 2. {@link waitForDecision} — reads the run's event stream (long polls, one after the other,
 *    where it cannot be had), backing off only after a failed poll (`wake`, a function returning a
 *    promise your webhook receiver resolves, cuts a backoff short). Ends with the operator's decision: approved (maybe edited), rejected with a reason,
 *    expired, or refused with a typed code — and always by the run's deadline plus a grace
 *    (`unreachable` when the console could not be reached by then).
 * 3. {@link verdictFor} — what to tell the framework about each of its calls: approve (the
 *    framework will call the tool's execute) or deny with the operator's reason.
 * 4. {@link PlanExecutor} — the wrapped execute: for the call's step it claims the step with the
 *    digest of the APPROVED arguments (from Plandesk, maybe the operator's edit — never the
 *    framework's history) and the bound task revision, runs your implementation with those
 *    arguments, reports the outcome, and returns what was actually done. Steps run strictly in
 *    plan order, once each, whatever order or concurrency the framework uses; a step the
 *    operator added runs in its place too. A refused claim (stale task, digest mismatch,
 *    expiry…) stops the plan with its typed code: nothing is retried silently.
 *
 * Everything that must survive a restart of the agent ({@link PendingPlan}) is plain JSON.
 */
export * from "./types.js";
export * from "./decision.js";
export * from "./executor.js";
