/** The default heap cap in MB when PLANDESK_HEAP_MB is unset (lib/net/server-heap.mjs). */
export declare const DEFAULT_HEAP_MB: number;
/**
 * The Node.js arguments that cap a server's heap (`["--max-old-space-size=<MB>"]`, or `[]`),
 * from PLANDESK_HEAP_MB and NODE_OPTIONS. Throws for a malformed PLANDESK_HEAP_MB.
 */
export declare function serverNodeArgs(env: Record<string, string | undefined>): string[];
