import { spawn, type ChildProcess } from "node:child_process";

/**
 * Starts the carrier MCP server (examples/carrier-mcp/server.ts) over Streamable HTTP on a free
 * port with bearer `token`, appending every call it receives to `callLog`. Resolves with its URL
 * (`http://127.0.0.1:<port>/mcp`) and the process once it listens; rejects with its stderr when it
 * exits first. `extraArgs`: more of the carrier's options (e.g. `["--delivered", "sh_5522"]`). The
 * caller kills the process.
 */
export function startHttpCarrier(token: string, callLog: string, extraArgs: string[] = []): Promise<{ url: string; process: ChildProcess }> {
  const carrier = spawn(process.execPath, ["--import", "tsx", "examples/carrier-mcp/server.ts", "--http", "0", "--token", token, "--call-log", callLog, ...extraArgs], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    carrier.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve({ url: m[1], process: carrier });
    });
    carrier.on("exit", (code) => reject(new Error(`the carrier exited (${code}): ${err}`)));
  });
}
