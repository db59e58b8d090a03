import { test } from "@playwright/test";
import { cannotExecuteEndsTyped, editApproveExecute, rejectReachesModel, revisedWhileWaiting, supersededEndsTheWait } from "./agents";
import { STORAGE } from "./helpers";

// examples/openai-agents against the production build: the agent proposes the reference case (#74991), a
// person decides in the browser, the agent resumes and executes through claims.
test.describe("OpenAI Agents SDK example agent", () => {
  test.use({ storageState: STORAGE.senior });
  test.setTimeout(180_000);

  test("the operator moves the date and approves; the agent writes the EDITED date through a claim", async ({ page, baseURL }) => {
    await editApproveExecute(page, "openai-agents", baseURL!);
  });

  test("a rejection reaches the model as the tool result, with the operator's reason", async ({ page, baseURL }) => {
    await rejectReachesModel(page, "openai-agents", baseURL!);
  });

  test("a newer plan of the same agent supersedes the waiting run: the agent is told at once, naming it", async ({ page, baseURL }) => {
    await supersededEndsTheWait(page, "openai-agents", baseURL!);
  });

  test("the task revised while the run waits stops it at once: the agent is told stopped_stale_task", async ({ page, baseURL }) => {
    await revisedWhileWaiting(page, "openai-agents", baseURL!);
  });

  test("a step the agent cannot execute (added by the operator) ends the run typed cannot_execute", async ({ page, baseURL }) => {
    await cannotExecuteEndsTyped(page, "openai-agents", baseURL!);
  });
});
