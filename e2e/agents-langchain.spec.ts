import { test } from "@playwright/test";
import { editApproveExecute, rejectReachesModel } from "./agents";
import { STORAGE } from "./helpers";

// examples/langchain (createAgent + humanInTheLoopMiddleware) against the production build: the agent proposes the reference case (#74991), a
// person decides in the browser, the agent resumes and executes through claims.
test.describe("LangChain createAgent example agent", () => {
  test.use({ storageState: STORAGE.senior });
  test.setTimeout(180_000);

  test("the operator moves the date and approves; the agent writes the EDITED date through a claim", async ({ page, baseURL }) => {
    await editApproveExecute(page, "langchain", baseURL!);
  });

  test("a rejection reaches the model as the tool result, with the operator's reason", async ({ page, baseURL }) => {
    await rejectReachesModel(page, "langchain", baseURL!);
  });
});
