/**
 * Where the records door ends the money holds of succeeded writes: `releaseSyncHolds` lives with
 * every other write of approval rows in lib/server/lifecycle/approval-lifecycle.ts.
 */
export { releaseSyncHolds } from "../lifecycle/approval-lifecycle";
