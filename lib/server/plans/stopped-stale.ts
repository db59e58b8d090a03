import { DomainError } from "../../errors/domain-error";

/**
 * A run stopped because its task was revised (`stopReason.code` `stopped_stale_task`) can never be
 * approved, edited or rejected: a person deciding on it is told 409 `stale_task`
 * {boundRevision, liveRevision} — the same answer they got while such a run still waited —
 * instead of a bare "not pending". Does nothing for any other run.
 */
export function refuseIfStoppedForStaleTask(run: { status: string; stopReason: unknown; boundTaskRevision: number }, action: string): void {
  if (run.status !== "stopped") return;
  const stop = (run.stopReason ?? {}) as { code?: unknown; liveRevision?: unknown };
  if (stop.code !== "stopped_stale_task") return;
  const live = typeof stop.liveRevision === "number" ? stop.liveRevision : null;
  throw new DomainError(
    "stale_task",
    `The task changed since this plan was made (plan bound to revision ${run.boundTaskRevision}, task now at ${live ?? "a newer revision"}); the run was stopped, so it can no longer be ${action}. The agent was told and can plan again.`,
    { boundRevision: run.boundTaskRevision, liveRevision: live },
  );
}
