import { z } from "zod/v4";

/**
 * What `zod` resolves to in the browser bundle (next.config.mjs `turbopack.resolveAlias`): zod
 * itself, told first to parse without compiling. zod compiles object parsers with `new Function`
 * unless told not to, and the console's CSP allows no eval, so its probe would be reported as a CSP
 * violation on every page with a form; interpreted parsing is plenty in a browser. Done here, not
 * in instrumentation-client, so a page without a form loads no zod at all. Servers import zod
 * directly and keep its compiled parsers.
 */
z.config({ jitless: true });

export * from "zod/v4";
