/**
 * What the live feed tells a console page, shared by the server (lib/server/live) and
 * the browser (components/live). Client-safe: no server imports.
 *
 * - `change`: something happened to a run (an audit event was committed: `type` is its audit type,
 *   e.g. `submitted`, `approved`, `edited`, `escalated`). The page refetches what shows the run.
 * - `presence`: a person opened a run (`viewing`), opened its edit form (`editing`) or left it
 *   (`left`). `seenAt` is the person's last heartbeat (ISO-8601 UTC); a presence older than
 *   PRESENCE_TTL_MS is over even without a `left`.
 */
export type LiveEvent =
  | { kind: "change"; type: string; runId: string; desk: string; at: string }
  | { kind: "presence"; runId: string; desk: string; userId: string; name: string; mode: PresenceMode; seenAt: string };

/** What a person does on a run page. `left`: they closed it. */
export type PresenceMode = "viewing" | "editing" | "left";

/** One person on one run right now (the `hello` snapshot and `POST /api/runs/{runId}/presence` answer). */
export interface PresenceEntry {
  runId: string;
  userId: string;
  name: string;
  mode: "viewing" | "editing";
  /** Last heartbeat, ISO-8601 UTC. */
  seenAt: string;
}

/** The first message of a stream: who is listening and who is where (bounded, the viewer's desk only). */
export interface LiveHello {
  you: string;
  presence: PresenceEntry[];
}

/** A presence lasts this long after its last heartbeat (the page beats every PRESENCE_HEARTBEAT_MS). */
export const PRESENCE_TTL_MS = 30_000;
/** How often an open run page says it is still open. */
export const PRESENCE_HEARTBEAT_MS = 10_000;

/** "Sofia Supervisor is viewing", "Sam Senior and Sofia Supervisor are editing" — per mode, names in order. */
export function presenceSentences(entries: Pick<PresenceEntry, "name" | "mode">[]): string[] {
  const out: string[] = [];
  for (const mode of ["editing", "viewing"] as const) {
    const names = [...new Set(entries.filter((e) => e.mode === mode).map((e) => e.name))].sort();
    if (names.length === 0) continue;
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
    out.push(`${list} ${names.length === 1 ? "is" : "are"} ${mode}`);
  }
  return out;
}
