/**
 * A TCP forwarder for tests, standing for the stable address (a DNS name or virtual IP) that a
 * managed PostgreSQL service moves from a failed primary to the promoted standby: app instances
 * connect to `127.0.0.1:<port>` and the test decides where that leads. `switchTo(port)` sends new
 * connections to another server; `cut()` resets every open connection at once (what clients see
 * when the old primary's host goes away); `refuse()` makes new connections fail (reset at once).
 */
import net from "node:net";

/** A running forwarder: its listening port and the controls above. */
export interface TcpSwitch {
  /** The port on 127.0.0.1 clients connect to. */
  port: number;
  /** The port new connections are forwarded to (null: refused). */
  target(): number | null;
  /** Forwards new connections to `port` on 127.0.0.1 from now on. */
  switchTo(port: number): void;
  /** New connections are reset at once until the next `switchTo`. */
  refuse(): void;
  /** Resets every open connection (both sides); returns how many there were. */
  cut(): number;
  /** Stops listening and resets what is open; never throws. */
  close(): Promise<void>;
}

/** Starts a forwarder on a free port of 127.0.0.1 leading to `targetPort` (null: refusing). */
export async function startTcpSwitch(targetPort: number | null): Promise<TcpSwitch> {
  let target = targetPort;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (target === null) return void client.resetAndDestroy();
    const upstream = net.connect(target, "127.0.0.1");
    open.add(client);
    open.add(upstream);
    const end = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    // a refused or reset upstream is a reset downstream, as a vanished host is to its clients
    upstream.on("error", () => (client.destroyed ? end() : (client.resetAndDestroy(), end())));
    client.on("error", end);
    upstream.on("close", end);
    client.on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const cut = () => {
    const n = open.size;
    for (const s of [...open]) s.resetAndDestroy();
    open.clear();
    return n;
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    target: () => target,
    switchTo: (port) => void (target = port),
    refuse: () => void (target = null),
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
}
