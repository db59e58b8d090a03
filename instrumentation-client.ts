import { z } from "zod";

// Runs in the browser before the app's code (Next.js instrumentation-client). zod compiles object
// parsers with `new Function` unless told not to; the console's CSP allows no eval, so zod's probe
// would be reported as a CSP violation on every page with a form. Interpreted parsing is plenty here.
z.config({ jitless: true });
