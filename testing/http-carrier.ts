import { spawn, type ChildProcess } from "node:child_process";

/**
 * Starts `script` (run with tsx) with `args`, an MCP server over Streamable HTTP on a free port,
 * and resolves with its URL once it writes `<anything> listening on http://127.0.0.1:<port>/mcp` to
 * stderr; rejects with its stderr when it exits first. The caller kills the process.
 */
function startHttpMcpServer(script: string, args: string[]): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve({ url: m[1], process: child });
    });
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}): ${err}`)));
  });
}

/**
 * Starts the carrier MCP server (examples/carrier-mcp/server.ts) over Streamable HTTP on a free
 * port with bearer `token`, appending every call it receives to `callLog`. Resolves with its URL
 * (`http://127.0.0.1:<port>/mcp`) and the process once it listens; rejects with its stderr when it
 * exits first. `extraArgs`: more of the carrier's options (e.g. `["--delivered", "sh_5522"]`). The
 * caller kills the process.
 */
export function startHttpCarrier(token: string, callLog: string, extraArgs: string[] = []): Promise<{ url: string; process: ChildProcess }> {
  return startHttpMcpServer("examples/carrier-mcp/server.ts", ["--http", "0", "--token", token, "--call-log", callLog, ...extraArgs]);
}

/**
 * Starts the staged carrier (testing/staged-carrier-mcp-server.ts: stage/commit redeliveries, book
 * and cancel collections) over Streamable HTTP on a free port, its state and call log
 * (`calls.jsonl`) in `stateDir`. `extraArgs`: more of its options (e.g. `["--collected", "sh_1"]`).
 * Resolves and rejects as {@link startHttpCarrier}; the caller kills the process.
 */
export function startHttpStagedCarrier(stateDir: string, extraArgs: string[] = []): Promise<{ url: string; process: ChildProcess }> {
  return startHttpMcpServer("testing/staged-carrier-mcp-server.ts", ["--http", "0", "--state-dir", stateDir, ...extraArgs]);
}
