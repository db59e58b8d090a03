/** The server's heap cap (lib/net/server-heap.mjs): a default, an override, V8's own, and the operator's NODE_OPTIONS. */
import { describe, expect, it } from "vitest";
import { DEFAULT_HEAP_MB, serverNodeArgs } from "./server-heap.mjs";

describe("serverNodeArgs", () => {
  it("caps the heap at the default, or at PLANDESK_HEAP_MB", () => {
    expect(serverNodeArgs({})).toEqual([`--max-old-space-size=${DEFAULT_HEAP_MB}`]);
    expect(serverNodeArgs({ PLANDESK_HEAP_MB: "512" })).toEqual(["--max-old-space-size=512"]);
  });
  it("leaves V8's default with 0, and the operator's NODE_OPTIONS when it sets a cap", () => {
    expect(serverNodeArgs({ PLANDESK_HEAP_MB: "0" })).toEqual([]);
    expect(serverNodeArgs({ NODE_OPTIONS: "--max-old-space-size=1024", PLANDESK_HEAP_MB: "256" })).toEqual([]);
  });
  it("refuses a value that is not a size a server can run in", () => {
    for (const bad of ["abc", "12", "1.5", "-1", ""]) expect(() => serverNodeArgs({ PLANDESK_HEAP_MB: bad })).toThrow(/PLANDESK_HEAP_MB/);
  });
});
