/**
 * Four flows a QA team runs against Plandesk, with the testing package's fixtures (a signed-in
 * page per role, named scenarios) and page objects only: an operator approves; an operator edits
 * and sees the review; a stale edit is refused; a supervisor finds the edit in the audit trail.
 */
import { EditReview, RunPage, StaleEdit, expect, test } from "@plandesk/client/testing";

/** ISO date `n` days after `iso`. */
function addDays(iso: string, n: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

test("an operator approves the reference case", async ({ scenarios, operatorPage }) => {
  const made = await scenarios.make("reference-case");
  const run = await new RunPage(operatorPage).goto(made.runIds[0]);
  // every make is a fresh copy of ticket #74991 with ids of its own: read them from the answer
  await expect(run.heading).toContainText(`Ticket #${made.ticketIds[0]}`);
  await expect(run.status).toHaveText("Pending review");
  await expect(run.steps).toHaveCount(3);
  await run.approve();
  await expect(run.status).toHaveText("Approved");
});

test("an operator moves the delivery date and sees the review of the edit", async ({ scenarios, operatorPage }) => {
  const made = await scenarios.make("reference-case");
  const run = await new RunPage(operatorPage).goto(made.runIds[0]);
  const form = await run.edit();
  const from = await form.field(1, "window.from").inputValue();
  const later = addDays(from, 4);
  await form.set(1, "window.from", later);
  await form.set(1, "window.to", later);
  const review = await form.save();
  expect(review).toBeInstanceOf(EditReview);
  expect(await (review as EditReview).changes()).toBe(1);
  await expect((review as EditReview).region).toContainText("(+4 days)");
  await expect(run.status).toHaveText("Pending review");
});

test("a stale edit is refused: someone else saved first", async ({ scenarios, operatorPage, supervisorPage }) => {
  const made = await scenarios.make("reference-case");
  const mine = await (await new RunPage(operatorPage).goto(made.runIds[0])).edit();
  const theirs = await (await new RunPage(supervisorPage).goto(made.runIds[0])).edit();
  await theirs.set(0, "note", "The supervisor's note, saved first.");
  expect(await theirs.save()).toBeInstanceOf(EditReview);

  await mine.set(0, "note", "The operator's note, based on version 1.");
  const answer = await mine.save();
  expect(answer).toBeInstanceOf(StaleEdit);
  await expect((answer as StaleEdit).region).toContainText("saved version 2");
});

test("a supervisor finds Sam Senior's edit in the audit trail", async ({ scenarios, supervisorPage }) => {
  const made = await scenarios.make("cross-account-refund");
  const run = await new RunPage(supervisorPage).goto(made.runIds[0]);
  const trail = await run.openAuditTrail();
  await expect(trail.edits).toHaveCount(1);
  await expect(trail.edits.first()).toContainText("Sam Senior");
  await expect(trail.diffOf(trail.edits.first())).toContainText(String(made.refs.invoiceId));
});
