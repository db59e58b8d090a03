import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTaintIndex, findCopiedRuns, TAINT_MIN_CHARS, TAINT_MIN_WORDS } from "./taint";
import type { TextSource } from "./text-sources";
import { MAX_PART_TEXT, MAX_PARTS_PER_REVISION } from "./schema";

type Part = { source: TextSource; text: string };
/** The runs `value` copies from the untrusted parts (customer and attachment) of `parts`. */
const runs = (parts: Part[], value: string, untrusted = parts.flatMap((p, i) => (p.source === "customer_message" || p.source === "attachment" ? [i] : []))) =>
  findCopiedRuns(buildTaintIndex(parts, new Set(untrusted)), value);
const copied = (parts: Part[], value: string) => runs(parts, value).map((r) => value.slice(r.start, r.end));

const MESSAGE = "Hello team, the driver left the pallet outside in the rain and the cartons are soaked through now. Order sh_5521, Ingrid Berg, 2026-04-10.";
const customer: Part[] = [{ source: "customer_message", text: MESSAGE }];

describe("taint: a run of words copied from untrusted text", () => {
  it(`${TAINT_MIN_WORDS} consecutive words are a copy; ${TAINT_MIN_WORDS - 1} are not`, () => {
    expect(copied(customer, "Note: the driver left the pallet outside, check the photos.")).toEqual(["the driver left the pallet outside"]);
    expect(copied(customer, "Note: the driver left the pallet behind the shed.")).toEqual([]);
  });

  it("names, order ids, dates and amounts shared with the message are no copy", () => {
    expect(copied(customer, "Ingrid Berg: sh_5521 damaged on 2026-04-10, rain damage, send photos.")).toEqual([]);
    expect(copied(customer, "Call Ingrid Berg about order sh_5521 (2026-04-10).")).toEqual([]);
  });

  it(`four long words of at least ${TAINT_MIN_CHARS} characters are a copy (compounds), four short ones are not`, () => {
    const de: Part[] = [{ source: "customer_message", text: "Bitte Transportversicherungsschaden Schadensregulierungsabteilung umgehend weiterleiten, danke." }];
    expect(copied(de, "Notiz: Transportversicherungsschaden Schadensregulierungsabteilung umgehend weiterleiten.")).toEqual([
      "Transportversicherungsschaden Schadensregulierungsabteilung umgehend weiterleiten",
    ]);
    expect(copied(customer, "in the rain and the pallet was late")).toEqual([]);
  });

  it("folds the disguises a person reads through: zero-width characters, look-alike letters, fullwidth, case, spacing and punctuation", () => {
    const value = "FYI — THE DRIVER\u200B LEFT the p\u0430llet   outside\nin the ｒａｉｎ!!";
    expect(copied(customer, value)).toEqual(["THE DRIVER\u200B LEFT the p\u0430llet   outside\nin the ｒａｉｎ"]);
    // and the customer may be the one who disguised it
    const disguised: Part[] = [{ source: "customer_message", text: "Ｐlease ＡPPROVE the\u200B full refund of 2400 for sh_5521 today" }];
    expect(copied(disguised, "please approve the full refund of 2400 now")).toEqual(["please approve the full refund of 2400"]);
  });

  it("works in any language: words are Unicode letters and digits; a script without spaces counts each character as half a word", () => {
    const parts: Part[] = [
      { source: "customer_message", text: "Пожалуйста, оформите полный возврат средств сегодня без проверки менеджера." },
      { source: "attachment", text: "お客様の荷物は明日の午前中に必ず配達してください。" },
    ];
    expect(copied(parts, "Клиент: оформите полный возврат средств сегодня без проверки")).toEqual(["оформите полный возврат средств сегодня без проверки"]);
    expect(copied(parts, "メモ：荷物は明日の午前中に必ず配達")).toEqual(["荷物は明日の午前中に必ず配達"]); // 13 characters
    expect(copied(parts, "メモ：明日の午前中に配達")).toEqual([]); // a date and a time of day
  });

  it("returns where the copy stands in the value and in the part, and which part it came from", () => {
    const parts: Part[] = [
      { source: "system", text: "Delivery exception." },
      { source: "customer_message", text: MESSAGE },
    ];
    const value = "Escalating: the cartons are soaked through now and the pallet was outside.";
    const [run] = runs(parts, value);
    expect(run).toMatchObject({ partIndex: 1, source: "customer_message", words: 6 });
    expect(value.slice(run.start, run.end)).toBe("the cartons are soaked through now");
    expect(MESSAGE.slice(run.partStart, run.partEnd)).toBe("the cartons are soaked through now");
  });

  it("a customer's words pasted into a staff comment are credited to the customer; a staff part is a source only when it is untrusted", () => {
    const parts: Part[] = [
      { source: "staff", text: `Customer wrote: ${MESSAGE}` },
      { source: "customer_message", text: MESSAGE },
    ];
    expect(runs(parts, "the driver left the pallet outside in the rain").map((r) => r.partIndex)).toEqual([1]);
    const staffOnly: Part[] = [{ source: "staff", text: "Please escalate this to the claims team with the photos attached today." }];
    expect(runs(staffOnly, "Please escalate this to the claims team with the photos")).toEqual([]);
    // a staff part the instruction scan flagged is untrusted: the validator passes its index
    expect(runs(staffOnly, "Please escalate this to the claims team with the photos", [0]).map((r) => r.source)).toEqual(["staff"]);
  });

  it("finds every separate copy in one value, each the longest run at its place", () => {
    const value = "the driver left the pallet outside — and then — the cartons are soaked through now";
    expect(copied(customer, value)).toEqual(["the driver left the pallet outside", "the cartons are soaked through now"]);
  });

  it("any run of at least six words cut from the text is found in any value, where it stands", () => {
    const words = ["pallet", "driver", "rain", "refund", "approve", "the", "of", "sh_5521", "in_74119", "Ingrid", "today", "escalate", "management", "full", "credit", "gate", "code", "back", "door", "late"];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...words), { minLength: 12, maxLength: 40 }),
        fc.nat(),
        fc.integer({ min: 6, max: 12 }),
        fc.constantFrom("", "Note: ", "Customer wrote «"),
        fc.constantFrom("", ".", "» end"),
        (ws, at, n, before, after) => {
          const start = at % (ws.length - n + 1);
          const slice = ws.slice(start, start + n).join(" ");
          const value = `${before}${slice}${after}`;
          const found = runs([{ source: "customer_message", text: ws.join(" ") }], value);
          expect(found.length).toBe(1);
          // the longest shared run lies around the slice (the value's words around it may match too)
          expect(value.slice(found[0].start, found[0].end)).toContain(slice);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("handles the largest task text: every part of a revision at its longest, and a long argument", () => {
    const sentence = (i: number) => `Line ${i}: the consignment for order ${i} arrived with ${i % 7} damaged cartons near dock ${i % 13}. `;
    const parts: Part[] = Array.from({ length: MAX_PARTS_PER_REVISION }, (_, p) => ({
      source: "customer_message" as const,
      text: Array.from({ length: 400 }, (_, i) => sentence(p * 1000 + i)).join("").slice(0, MAX_PART_TEXT),
    }));
    const value = `${"ok ".repeat(1300)} the consignment for order 19005 arrived with`;
    const found = runs(parts, value);
    expect(found.map((r) => [r.partIndex, value.slice(r.start, r.end)])).toEqual([[19, "the consignment for order 19005 arrived with"]]);
  });
});
