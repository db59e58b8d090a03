import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/** Next.js's own lint rules (core web vitals + TypeScript), run by `npm test`. */
const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ["lib/generated/**", ".next/**", "node_modules/**", "data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "bench/results/**"],
  },
  {
    rules: {
      // Unused names are allowed when they say so (`_desk`), e.g. fields dropped from a response.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
  {
    // Tests read loosely typed JSON answers.
    files: ["**/*.test.ts", "e2e/**/*.ts", "testing/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unused-expressions": "off" },
  },
];

export default config;
