import { describe, expect, it } from "vitest";
import { catalogChanges, intentCatalogDraftSchema, intentCatalogFormSchema, unknownPermittedTools } from "./intent-catalog";

const DIGEST = "a".repeat(64);
const question = { name: "question", label: "Question", description: "", permittedTools: ["send_reply", "add_ticket_note"] };

describe("the intent catalog draft", () => {
  it("accepts unique snake_case names with their tools, and refuses a duplicate name or a tool listed twice on that field", () => {
    expect(intentCatalogDraftSchema.safeParse({ baseDigest: DIGEST, intents: [question], note: "first" }).success).toBe(true);
    const dup = intentCatalogDraftSchema.safeParse({ baseDigest: DIGEST, intents: [question, { ...question, label: "Again" }], note: "n" });
    expect(dup.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["intents.1.name", '"question" is already intent 1; names are unique']]);
    const twice = intentCatalogDraftSchema.safeParse({ baseDigest: DIGEST, intents: [{ ...question, permittedTools: ["send_reply", "send_reply"] }], note: "n" });
    expect(twice.error?.issues.map((i) => i.path.join("."))).toEqual(["intents.0.permittedTools.1"]);
  });

  it("refuses a name that is not snake_case, an empty label, a missing note and a bad digest", () => {
    const r = intentCatalogDraftSchema.safeParse({ baseDigest: "nope", intents: [{ ...question, name: "Refund Request", label: " " }], note: " " });
    expect(r.error?.issues.map((i) => i.path.join(".")).sort()).toEqual(["baseDigest", "intents.0.label", "intents.0.name", "note"]);
  });

  it("the form's checkboxes: checked tools kept, none checked (false) is no tool", () => {
    const f = intentCatalogFormSchema.parse({ baseDigest: DIGEST, note: "n", intents: [{ name: "nothing_yet", label: "Nothing yet", description: "", permittedTools: false }] });
    expect(f.intents[0].permittedTools).toEqual([]);
  });

  it("names permitted tools the catalog does not have, with their path", () => {
    expect(unknownPermittedTools([question, { ...question, name: "refunds", permittedTools: ["issue_refund", "isue_refund"] }], new Set(["send_reply", "add_ticket_note", "issue_refund"]))).toEqual([
      { path: "intents.1.permittedTools.1", code: "unknown_tool", message: "isue_refund is not a tool of the catalog" },
    ]);
  });

  it("says what a save changes: added, removed, changed (label, description or tools)", () => {
    const before = [question, { name: "refund_request", label: "Refund", description: "", permittedTools: ["issue_refund"] }];
    const after = [{ ...question, permittedTools: ["send_reply"] }, { name: "damage_claim", label: "Damage", description: "", permittedTools: [] }];
    expect(catalogChanges(before, after)).toEqual({ added: ["damage_claim"], removed: ["refund_request"], changed: ["question"] });
    expect(catalogChanges(before, before)).toEqual({ added: [], removed: [], changed: [] });
  });
});
