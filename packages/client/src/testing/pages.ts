/**
 * Page objects for a QA suite's Playwright flows against a Plandesk console: the queue, a run's
 * page, the plan's edit form, the review of a saved edit (or the stale-edit conflict) and the
 * audit trail. Built only on what the repository's docs/testing.md documents — roles, accessible
 * names, test ids and the `html[data-shortcuts~="<id>"]` attribute that says a streamed page is
 * live — so a suite that uses them breaks only when a documented name does.
 */
import { expect, type Locator, type Page } from "@playwright/test";

/** Waits until the shortcut `id` of the current page is live (its content has streamed in and hydrated). */
export async function waitForShortcut(page: Page, id: string): Promise<void> {
  await page.locator(`html[data-shortcuts~="${id}"]`).waitFor({ state: "attached" });
}

/** The queue (`/`): search, views, filters and the runs listed. */
export class QueuePage {
  constructor(readonly page: Page) {}

  /** Opens the queue and waits until its search shortcut is live. */
  async goto(query = ""): Promise<this> {
    await this.page.goto(`/${query}`);
    await waitForShortcut(this.page, "search");
    return this;
  }

  /** The search landmark ("Search the queue"). */
  get search(): Locator {
    return this.page.getByRole("search", { name: "Search the queue" });
  }

  /** Types `text` into the queue's search (labelled "Search"). */
  async searchFor(text: string): Promise<void> {
    await this.search.getByLabel("Search").fill(text);
  }

  /** The link to run `runId` in the queue. */
  runLink(runId: string): Locator {
    return this.page.locator(`a[href="/runs/${runId}"]`).first();
  }

  /** Opens run `runId` from the queue. */
  async openRun(runId: string): Promise<RunPage> {
    await this.runLink(runId).click();
    return new RunPage(this.page).waitLive();
  }
}

/** A run's page (`/runs/{id}`): heading, status, steps, decision bar, edit, approve, reject. */
export class RunPage {
  constructor(readonly page: Page) {}

  /** Opens `/runs/{runId}` and waits until its shortcuts are live. */
  async goto(runId: string): Promise<this> {
    await this.page.goto(`/runs/${runId}`);
    return this.waitLive();
  }

  /** Waits for the run page's content: the heading and its live shortcuts (the `edit` shortcut is registered on every run page). */
  async waitLive(): Promise<this> {
    await expect(this.heading).toBeVisible();
    await waitForShortcut(this.page, "edit");
    return this;
  }

  /** The level-1 heading, "Ticket #<number> · <subject>". */
  get heading(): Locator {
    return this.page.getByRole("heading", { level: 1 });
  }

  /** The status badge (`role="status"`, name "Run status"): its text is the status ("Pending review", "Approved", …). */
  get status(): Locator {
    return this.page.getByRole("status", { name: "Run status" });
  }

  /** The plan's steps: the items of the list "Plan steps" (its direct children; a step's own lists, e.g. its evidence, are not steps). */
  get steps(): Locator {
    return this.page.getByRole("list", { name: "Plan steps", exact: true }).locator(":scope > li");
  }

  /** The decision bar region and its summary. */
  get decisionBar(): Locator {
    return this.page.getByRole("region", { name: "Decision bar" });
  }

  /** The main approve button (test id `approve-all`; its text says what it approves). */
  get approveButton(): Locator {
    return this.page.getByTestId("approve-all");
  }

  /** Approves what is on screen and waits until the status leaves "Pending review". */
  async approve(): Promise<void> {
    await waitForShortcut(this.page, "approve");
    await this.approveButton.click();
    await expect(this.status).not.toHaveText("Pending review");
  }

  /** Rejects the plan with `reason` (which the agent reads) and waits for "Rejected". */
  async reject(reason: string): Promise<void> {
    await this.page.getByRole("button", { name: "Reject…" }).click();
    await this.page.getByLabel("Reason (the agent reads it)").fill(reason);
    await this.page.getByRole("button", { name: "Reject plan" }).click();
    await expect(this.status).toHaveText("Rejected");
  }

  /** Opens the plan's edit form. */
  async edit(): Promise<EditForm> {
    await this.page.getByRole("button", { name: "Edit plan" }).click();
    const form = new EditForm(this.page);
    await expect(form.steps.first()).toBeVisible();
    return form;
  }

  /** Follows the "Audit trail" link. */
  async openAuditTrail(): Promise<AuditTrail> {
    await this.page.getByRole("link", { name: "Audit trail" }).click();
    const trail = new AuditTrail(this.page);
    await expect(trail.list).toBeVisible();
    return trail;
  }
}

/** The plan's edit form (list "Plan steps (editing)"). Fields are addressed by step index (0-based) and argument path, e.g. `field(1, "window.from")`. */
export class EditForm {
  constructor(readonly page: Page) {}

  /** The steps being edited (the direct items of the list "Plan steps (editing)"). */
  get steps(): Locator {
    return this.page.getByRole("list", { name: "Plan steps (editing)" }).locator(":scope > li");
  }

  /** The input of argument `path` of step `index` (its id is `steps.<index>.args.<path>`). */
  field(index: number, path: string): Locator {
    return this.page.locator(`[id="steps.${index}.args.${path}"]`);
  }

  /** Fills argument `path` of step `index` with `value`. */
  async set(index: number, path: string, value: string): Promise<void> {
    await this.field(index, path).fill(value);
  }

  /** Adds a step of `tool` (the "Add step" box, then its button). */
  async addStep(tool: string): Promise<void> {
    await this.page.getByLabel("Add step").selectOption(tool);
    await this.page.getByRole("button", { name: "Add step", exact: true }).click();
  }

  /** Removes step `n` (1-based, as the button says "Remove step <n>"). */
  async removeStep(n: number): Promise<void> {
    await this.page.getByRole("button", { name: `Remove step ${n}` }).click();
  }

  /** Saves the edit; the answer is either the review of the edit or the stale-edit conflict. */
  async save(): Promise<EditReview | StaleEdit> {
    await this.page.getByRole("button", { name: "Save edit" }).click();
    const review = new EditReview(this.page);
    const stale = new StaleEdit(this.page);
    await expect(review.region.or(stale.region)).toBeVisible();
    return (await stale.region.isVisible()) ? stale : review;
  }
}

/** The review shown after one's own edit: region "Your edit changed <n> things", listing each changed, added, removed or moved step. */
export class EditReview {
  readonly kind = "review" as const;
  constructor(readonly page: Page) {}

  get region(): Locator {
    return this.page.getByRole("region", { name: /^Your edit changed/ });
  }

  /** How many things the edit changed, read from the region's name. */
  async changes(): Promise<number> {
    // textContent, not innerText: the heading may be styled in capitals
    const heading = (await this.region.getByRole("heading", { name: /Your edit changed/ }).textContent()) ?? "";
    const m = /changed (\d+) thing/i.exec(heading);
    if (!m) throw new Error(`Unexpected review heading "${heading}"`);
    return Number(m[1]);
  }
}

/** The conflict shown when someone else saved the plan first (region "Someone else changed this plan first"). */
export class StaleEdit {
  readonly kind = "stale" as const;
  constructor(readonly page: Page) {}

  get region(): Locator {
    return this.page.getByRole("region", { name: "Someone else changed this plan first" });
  }
}

/** A run's audit trail (`/runs/{id}/audit`): the list "Audit events" of `audit-event` items (each with `data-type`, e.g. `edited`, `approved`). */
export class AuditTrail {
  constructor(readonly page: Page) {}

  /** Opens `/runs/{runId}/audit`. */
  async goto(runId: string): Promise<this> {
    await this.page.goto(`/runs/${runId}/audit`);
    await expect(this.list).toBeVisible();
    return this;
  }

  get list(): Locator {
    return this.page.getByRole("list", { name: "Audit events" });
  }

  /** Every event, oldest first. */
  get events(): Locator {
    return this.list.getByTestId("audit-event");
  }

  /** The events of one type (`data-type`: `submitted`, `edited`, `approved`, `rejected`, `outcome`, …). */
  eventsOf(type: string): Locator {
    return this.list.locator(`[data-testid="audit-event"][data-type="${type}"]`);
  }

  /** The edits people made, each with its field-by-field diff ({@link AuditTrail.diffOf}). */
  get edits(): Locator {
    return this.eventsOf("edited");
  }

  /** The field-by-field diff (test id `edit-diff`) of an `edited` event. */
  diffOf(event: Locator): Locator {
    return event.getByTestId("edit-diff");
  }
}
