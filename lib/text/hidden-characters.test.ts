import { describe, expect, it } from "vitest";
import { findHiddenCharacters, markHiddenCharacters, toDisplayOrder, withVisibleMarkers } from "./hidden-characters";

describe("hidden characters", () => {
  it("a right-to-left override reads as displayed: 'we will \\u202ednufer\\u202c you' says refund", () => {
    expect(toDisplayOrder("we will \u202ednufer\u202c you $150.00")).toBe("we will refund you $150.00");
    expect(toDisplayOrder("a\u202ecb\u202dfe\u202c\u202cz")).toBe("afebcz"); // nested: the inner left-to-right run is kept whole
    expect(toDisplayOrder("no controls here")).toBe("no controls here");
    expect(toDisplayOrder("open \u202eended")).toBe("open dedne"); // an unclosed override runs to the end
  });

  it("finds and names zero-width, bidi, BOM and no-break characters, and shows each as a marker", () => {
    const text = "pay\u200b me\u00a0now\u202e!\ufeff";
    expect(findHiddenCharacters(text).map((h) => h.name)).toEqual(["ZWSP", "NBSP", "RLO", "BOM"]);
    expect(withVisibleMarkers(text)).toBe("pay⟨ZWSP⟩ me⟨NBSP⟩now⟨RLO⟩!⟨BOM⟩");
    expect(markHiddenCharacters("a\u200db")).toEqual([
      { kind: "text", text: "a" },
      { kind: "marker", name: "ZWJ", codePoint: "U+200D" },
      { kind: "text", text: "b" },
    ]);
    expect(findHiddenCharacters("plain text,\ttabs\nand newlines")).toEqual([]);
  });
});
