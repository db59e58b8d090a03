/** Types of server-registry.mjs (plain JavaScript so the server and start.mjs run it without a compile step). */

/** The registry folder under the checkout's root. */
export declare const SERVERS_DIR: string;
/** One registered server. `startedAt`: ISO 8601 UTC. */
export interface RegisteredServer {
  pid: number;
  port: number | null;
  startedAt: string | null;
  file: string;
}
/** Records the server `pid` listening on `port` under `root`; returns the file written. */
export declare function registerServer(root: string, entry: { pid: number; port: number; startedAt?: string }): string;
/** Removes a registration; never throws. */
export declare function unregisterServer(file: string): void;
/** The registrations under `root`. */
export declare function registeredServers(root: string): RegisteredServer[];
/** The registrations under `root` whose process is alive, removing the others' files. */
export declare function pruneServers(root: string, alive: (pid: number) => boolean): RegisteredServer[];
/** Whether `pid` is alive and a Plandesk server. */
export declare function serverAlive(pid: number): boolean;
/** `null` when no registered server is alive, else the message refusing a rebuild in place. */
export declare function rebuildRefusal(servers: readonly Pick<RegisteredServer, "pid" | "port" | "startedAt">[], alive: (pid: number) => boolean): string | null;
