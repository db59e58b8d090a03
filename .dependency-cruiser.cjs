/**
 * The dependency rule (docs/style.md §7, §13, §14), checked by scripts/dependency-rule.test.ts in
 * `npm test` with dependency-cruiser. Folder-level: no two lib/server folders import each other
 * (checked in the test from this tool's graph, as dependency-cruiser has no rule for mutual folders).
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A module that reaches itself through its imports: split the shared part into a module both import.",
      from: { path: "^(lib|app|components)/" },
      to: { circular: true },
    },
    {
      name: "domain-without-framework",
      severity: "error",
      comment: "Domain logic in lib/ (outside lib/server) is plain TypeScript: no Next.js, React or query-client imports.",
      from: { path: "^lib/", pathNot: "^lib/(server|generated)/|\\.test\\.tsx?$" },
      to: { path: "(^|/)node_modules/(next|react|react-dom|@tanstack/[^/]+)/" },
    },
    {
      name: "domain-without-server",
      severity: "error",
      comment: "lib/ outside lib/server never reaches the database or the session: lib/server calls it, not the other way round.",
      from: { path: "^lib/", pathNot: "^lib/(server|generated)/|\\.test\\.ts$" },
      to: { path: "^lib/server/" },
    },
    {
      name: "production-without-test-support",
      severity: "error",
      comment: "testing/ holds fixtures and helpers for tests; production code never imports it.",
      from: { path: "^(lib|app|components)/", pathNot: "\\.test\\.tsx?$" },
      to: { path: "^testing/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^lib/generated/|\\.next/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
