/**
 * `@plandesk/client/testing`: Playwright fixtures (a signed-in page per role, signed-in request
 * contexts, the agent client, named scenarios and reset) and page objects (queue, run page, edit
 * form, edit review, stale-edit conflict, audit trail) for a QA suite's own repository. Needs
 * `@playwright/test` (a peer dependency). What the page objects rely on is the list of roles,
 * names and test ids in the repository's docs/testing.md.
 */
export * from "./fixtures.js";
export * from "./pages.js";
