/**
 * The registry of running servers (lib/net/server-registry.mjs) and the rule `npm start` follows
 * with it: no rebuild of `.next` in place while a server of the checkout runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pruneServers, rebuildRefusal, registeredServers, registerServer, serverAlive, SERVERS_DIR, unregisterServer } from "./server-registry.mjs";

const roots: string[] = [];
const tempRoot = () => {
  const r = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-registry-"));
  roots.push(r);
  return r;
};
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe("rebuildRefusal", () => {
  const a = { pid: 4242, port: 3000, startedAt: "2026-12-05T10:00:00.000Z" };
  const b = { pid: 4343, port: 3001, startedAt: null };

  it("allows the rebuild when no registered server is alive (none, or every one left by a crash)", () => {
    expect(rebuildRefusal([], () => true)).toBeNull();
    expect(rebuildRefusal([a, b], () => false)).toBeNull();
  });

  it("refuses while one runs, naming its pid and port and what to do", () => {
    const msg = rebuildRefusal([a, b], (pid) => pid === 4242)!;
    expect(msg).toContain("pid 4242 on port 3000, since 2026-12-05T10:00:00.000Z");
    expect(msg).not.toContain("4343");
    expect(msg).toContain("kill -TERM 4242");
    expect(msg).toMatch(/another copy of the checkout/);
  });

  it("names every live server", () => {
    const msg = rebuildRefusal([a, b], () => true)!;
    expect(msg).toContain("2 servers of this checkout are running");
    expect(msg).toContain("kill -TERM 4242 4343");
  });
});

describe("the registry", () => {
  it("records a server under .servers/<pid>.json and forgets it when it unregisters", () => {
    const root = tempRoot();
    const file = registerServer(root, { pid: 123, port: 3100, startedAt: "2026-12-05T00:00:00.000Z" });
    expect(file).toBe(path.join(root, SERVERS_DIR, "123.json"));
    fs.writeFileSync(path.join(root, SERVERS_DIR, "half-written.json"), "{");
    fs.writeFileSync(path.join(root, SERVERS_DIR, "124.json"), "{");
    expect(registeredServers(root)).toEqual([{ pid: 123, port: 3100, startedAt: "2026-12-05T00:00:00.000Z", file }]);
    unregisterServer(file);
    unregisterServer(file);
    expect(registeredServers(root)).toEqual([]);
    expect(registeredServers(path.join(root, "nowhere"))).toEqual([]);
  });

  it("forgets the registrations of servers that died without removing them", () => {
    const root = tempRoot();
    const dead = registerServer(root, { pid: 11, port: 3000 });
    const live = registerServer(root, { pid: 12, port: 3001 });
    expect(pruneServers(root, (pid) => pid === 12).map((s) => s.pid)).toEqual([12]);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  });

  it("counts only live server processes as running", () => {
    expect(serverAlive(2 ** 22 + 7)).toBe(false); // above Linux's pid_max default
    // this test process is alive but is not scripts/server.mjs (its command line says so on Linux)
    expect(serverAlive(process.pid)).toBe(!fs.existsSync(`/proc/${process.pid}/cmdline`));
  });
});
