/**
 * Several app instances on one database: two separate OS processes, each with
 * its own Prisma client and connection pool (testing/instance-child.ts), run the real service
 * functions against this file's database at the same moment. With PLANDESK_TEST_DB=postgres
 * (`npm test` runs this file on PostgreSQL too) that is the deployment of several `next start`
 * processes behind a load balancer on one PostgreSQL database.
 * Every round has exactly one winner and every loser a typed 409; the deadline sweep, run on both
 * instances at once, escalates and expires each run exactly once. The races
 * (testing/instance-races.ts) start from `prepareTestDatabase`, so scripts/test.mjs runs this file on
 * PostgreSQL too.
 */
import { describeInstanceRaces } from "../../../testing/instance-races";

describeInstanceRaces();
