import { describe, expect, it } from "vitest";
import { checkUntil, MAX_SNOOZE_MS, parkHolds, snoozeChoices, type ParkSnapshot } from "./park";

const T0 = new Date("2026-04-01T09:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const park = (p: Partial<ParkSnapshot> = {}): ParkSnapshot => ({ kind: "skip", until: null, parkedAt: T0, planVersion: 1, taskRevision: 1, status: "pending_review", ...p });
const same = { planVersion: 1, taskRevision: 1, status: "pending_review", lastOtherDecisionAt: null };

describe("parkHolds (docs/design.md \"Skip and snooze\")", () => {
  it("a skip holds while the run stays as it was", () => {
    expect(parkHolds(park(), same, at(24 * 60))).toBe(true);
  });
  it("ends with a new plan version, a new task revision or another status", () => {
    expect(parkHolds(park(), { ...same, planVersion: 2 }, at(1))).toBe(false);
    expect(parkHolds(park(), { ...same, taskRevision: 2 }, at(1))).toBe(false);
    expect(parkHolds(park(), { ...same, status: "needs_decision" }, at(1))).toBe(false);
  });
  it("ends when someone else decided after the park, not for a decision before it", () => {
    expect(parkHolds(park(), { ...same, lastOtherDecisionAt: at(5) }, at(10))).toBe(false);
    expect(parkHolds(park(), { ...same, lastOtherDecisionAt: at(-5) }, at(10))).toBe(true);
  });
  it("a snooze ends at its time, or earlier when the run changes", () => {
    const snooze = park({ kind: "snooze", until: at(60) });
    expect(parkHolds(snooze, same, at(59))).toBe(true);
    expect(parkHolds(snooze, same, at(60))).toBe(false);
    expect(parkHolds(snooze, { ...same, planVersion: 2 }, at(1))).toBe(false);
  });
});

describe("checkUntil", () => {
  it("takes null (until a change) or a time within 30 days", () => {
    expect(checkUntil(null, T0)).toEqual({ ok: true, until: null });
    expect(checkUntil(undefined, T0)).toEqual({ ok: true, until: null });
    expect(checkUntil(at(60).toISOString(), T0)).toEqual({ ok: true, until: at(60) });
  });
  it("refuses a time past, beyond 30 days or not a time, saying why", () => {
    expect(checkUntil(at(0).toISOString(), T0)).toMatchObject({ ok: false, message: expect.stringContaining("future") });
    expect(checkUntil(new Date(T0.getTime() + MAX_SNOOZE_MS + 1).toISOString(), T0)).toMatchObject({ ok: false, message: expect.stringContaining("30 days") });
    expect(checkUntil("tomorrow", T0)).toMatchObject({ ok: false, message: expect.stringContaining("ISO-8601") });
  });
});

describe("snoozeChoices", () => {
  it("offers 1 hour, 4 hours and tomorrow 09:00 in the person's time zone", () => {
    const late = new Date("2026-04-01T22:30:00Z"); // 00:30 on 2 April in Oslo (UTC+2)
    const [one, four, tomorrow] = snoozeChoices(late, 120);
    expect(one.until).toEqual(new Date("2026-04-01T23:30:00Z"));
    expect(four.until).toEqual(new Date("2026-04-02T02:30:00Z"));
    expect(tomorrow).toEqual({ label: "Tomorrow 09:00", until: new Date("2026-04-03T07:00:00Z") }); // 09:00 Oslo on 3 April
    expect(snoozeChoices(T0)[2].until).toEqual(new Date("2026-04-02T09:00:00Z"));
  });
});
