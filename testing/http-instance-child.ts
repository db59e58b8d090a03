/**
 * Test fixture: one app instance serving the agent API over HTTP without a Next.js build — a
 * separate OS process with its own Prisma client and connection pool on DATABASE_URL
 * (testing/in-process-server.ts: the same route wrapper, refusals and database mapping `next
 * start` runs, answers streamed). Prints `{"listening": <port>}` on stdout once it serves. Used
 * by the failover test and the decision-push benchmark; not used by the app.
 */
import { startInProcessServer } from "./in-process-server";

void startInProcessServer(Number(process.env.PORT ?? 0)).then(({ server, port }) => {
  console.log(JSON.stringify({ listening: port }));
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
});
