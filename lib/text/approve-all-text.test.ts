import { describe, expect, it } from "vitest";
import { approveAllText } from "./approve-all-text";

describe("approveAllText", () => {
  it("says exactly what the approve button approves", () => {
    expect(approveAllText([{ position: 1 }, { position: 2 }, { position: 3 }], 3)).toBe("Approve plan (3 steps)");
    expect(approveAllText([{ position: 2 }, { position: 3 }], 3)).toBe("Approve 2 remaining steps (2, 3)");
    expect(approveAllText([{ position: 3 }], 3)).toBe("Approve step 3");
  });

  it("never reads 'Approve 0 remaining steps ()' on an approved run, and names the step a run needing a new decision approves again", () => {
    expect(approveAllText([], 1)).toBe("Nothing left to approve");
    expect(approveAllText([], 3)).toBe("Nothing left to approve");
    expect(approveAllText([{ position: 1 }], 1, true)).toBe("Approve step 1 again");
  });
});
