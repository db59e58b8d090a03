import { configDefaults, defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const __dirname = path.dirname(fileURLToPath(import.meta.url));

// This run's id: the test files share one seeded template database per run (testing/test-template.ts).
process.env.PLANDESK_TEST_SUITE_ID ??= `${process.pid}x${Math.random().toString(36).slice(2, 10).replace(/[^a-z0-9]/g, "")}`;

/** The package's entry points by subpath ("" is the package itself). */
const CLIENT_ENTRIES: Record<string, string> = {
  "": "index.ts",
  "ai-sdk": "adapters/ai-sdk.ts",
  "openai-agents": "adapters/openai-agents.ts",
  langgraph: "adapters/langgraph.ts",
  langchain: "adapters/langchain.ts",
  demo: "demo.ts",
  testing: "testing/index.ts",
};

export default defineConfig({
  resolve: {
    // `@plandesk/client` and its subpaths resolve to the package's source (packages/client/src), as in tsconfig.json.
    alias: [
      ...Object.entries(CLIENT_ENTRIES).map(([sub, file]) => ({ find: new RegExp(`^@plandesk/client${sub ? `/${sub}` : ""}$`), replacement: path.resolve(__dirname, "packages/client/src", file) })),
      { find: "@", replacement: path.resolve(__dirname) },
    ],
  },
  test: {
    include: ["lib/**/*.test.ts", "scripts/**/*.test.ts", "app/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    // `*.pg.test.ts` files test PostgreSQL-only deployments (a transaction pooler, a failover to a standby): they run on the
    // PostgreSQL pass (PLANDESK_TEST_DB=postgres, scripts/test.mjs), not on SQLite.
    exclude: [...configDefaults.exclude, ...(/^(postgres|postgresql|pg)$/i.test(process.env.PLANDESK_TEST_DB?.trim() ?? "") ? [] : ["**/*.pg.test.ts"])],
    environment: "node",
    testTimeout: 30000,
    // A file may wait for the run's seeded template to be built (testing/test-template.ts).
    hookTimeout: 180000,
    pool: "forks",
    // Vitest's default is one worker less than the cores: ONE on CI's two cores. Each file has its
    // own database and much of a file's time is spent waiting on it, so two files at a time (or one
    // per core on larger machines) cut the suite's wall time.
    maxWorkers: Math.max(2, os.availableParallelism()),
    setupFiles: ["./vitest.setup.ts"],
    globalSetup: ["./testing/test-template-teardown.ts"],
  },
});
