import { describe, expect, it } from "vitest";
import { redactAnswer } from "./mcp-upstreams";

const redact = (t: string) => t.split("sk_live_42").join("[credential]");

describe("redactAnswer: an upstream's answer never hands on its credential", () => {
  it("cleans every string of a tool result — text content, structured content, _meta, keys — and keeps the rest", () => {
    const answer = {
      content: [{ type: "text", text: "401: invalid token sk_live_42 for booking" }],
      structuredContent: { echoed: { authorization: "Bearer sk_live_42" }, attempts: 2, ok: false, list: ["a", "sk_live_42"] },
      _meta: { sk_live_42: "seen" },
      isError: true,
    };
    const clean = redactAnswer(answer, redact);
    expect(JSON.stringify(clean)).not.toContain("sk_live_42");
    expect(clean).toEqual({
      content: [{ type: "text", text: "401: invalid token [credential] for booking" }],
      structuredContent: { echoed: { authorization: "Bearer [credential]" }, attempts: 2, ok: false, list: ["a", "[credential]"] },
      _meta: { "[credential]": "seen" },
      isError: true,
    });
    expect(answer.content[0].text).toContain("sk_live_42"); // the input is not changed in place
  });
});
