import { describe, expect, it } from "vitest";
import { deadlineUrgency } from "./urgency";

const now = new Date("2026-12-01T12:00:00Z");
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();
const run = (expiresIn: number, escalateIn: number, status = "pending_review") => ({ status, expiresAt: at(expiresIn), escalateAt: at(escalateIn) });

describe("deadlineUrgency", () => {
  it("is calm far from the deadline", () => {
    expect(deadlineUrgency(run(600, 400), now)).toEqual({ tone: "calm", label: "" });
  });
  it("is near (amber, 'due soon') under two hours left", () => {
    expect(deadlineUrgency(run(119, 200), now)).toEqual({ tone: "near", label: "due soon" });
    expect(deadlineUrgency(run(121, 200), now).tone).toBe("calm");
  });
  it("is escalated once the escalation time passed, even far from expiry", () => {
    expect(deadlineUrgency(run(300, 0), now)).toEqual({ tone: "escalated", label: "escalated" });
  });
  it("is urgent ('expires soon') under 15 minutes, escalated or not", () => {
    expect(deadlineUrgency(run(14, -60), now)).toEqual({ tone: "urgent", label: "expires soon" });
    expect(deadlineUrgency(run(14, 60), now).tone).toBe("urgent");
  });
  it("is expired at the deadline", () => {
    expect(deadlineUrgency(run(0, -10), now)).toEqual({ tone: "expired", label: "expired" });
  });
  it("says nothing for runs that do not wait for a person", () => {
    expect(deadlineUrgency(run(5, -10, "completed"), now).tone).toBe("calm");
    expect(deadlineUrgency(run(5, -10, "approved"), now).tone).toBe("urgent");
  });
});
