import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/** Next.js's own lint rules (core web vitals + TypeScript), run by `npm test`. */
const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ["lib/generated/**", "packages/*/dist/**", "packages/*/src/generated/**", ".next/**", "node_modules/**", "data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "bench/results/**"],
  },
  {
    rules: {
      // Unused names are allowed when they say so (`_desk`), e.g. fields dropped from a response.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
  {
    // One way to run a transaction (docs/style.md §13): lib/server/db/transaction.ts's
    // inTransaction / inTransactionOnce, with the retry, the write lock and SERIALIZABLE on
    // PostgreSQL. Only that file and the seeds' batch writes call $transaction themselves.
    files: ["lib/**/*.ts", "app/**/*.ts", "app/**/*.tsx"],
    // One owner per state (docs/style.md §12): approval records are written only by
    // lib/server/lifecycle/approval-lifecycle.ts, by the events of lib/lifecycle/approval-state.ts.
    ignores: ["lib/server/db/transaction.ts", "lib/server/lifecycle/approval-lifecycle.ts", "lib/server/demo/seed.ts", "lib/server/demo/scale-seed.ts", "**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "MemberExpression[property.name='$transaction']", message: "Run the unit of work through inTransaction (lib/server/db/transaction.ts), which retries conflicts and runs SERIALIZABLE on PostgreSQL." },
        {
          selector: "CallExpression[callee.object.property.name='approval'][callee.property.name=/^(create|createMany|update|updateMany|upsert|delete|deleteMany)$/]",
          message: "Approval state changes only through lib/server/lifecycle/approval-lifecycle.ts (giveApproval, moveApprovals).",
        },
      ],
    },
  },
  {
    // Tests read loosely typed JSON answers.
    files: ["**/*.test.ts", "e2e/**/*.ts", "testing/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unused-expressions": "off" },
  },
  {
    // Playwright fixtures hand their value over with `use(value)`, which is not React's hook.
    files: ["packages/client/src/testing/**/*.ts"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
];

export default config;
