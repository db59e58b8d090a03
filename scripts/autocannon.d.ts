/**
 * The part of autocannon@9 (no bundled types) that scripts/bench-load.ts uses: an instance per
 * call, its per-request setup hook, and the events it emits. Times in milliseconds.
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>;
  }

  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    requests?: AutocannonRequest[];
  }

  interface AutocannonInstance extends EventEmitter {
    stop(): void;
  }

  function autocannon(opts: AutocannonOptions, done?: (err: Error | null, result: unknown) => void): AutocannonInstance;
  export default autocannon;
}
