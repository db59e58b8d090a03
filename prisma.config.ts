import { defineConfig } from "prisma/config";

// Used by `prisma generate` only; migrations are applied by scripts/migrate.ts
// through the WebAssembly schema engine (scripts/migrate.ts).
export default defineConfig({
  schema: "prisma/schema.prisma",
});
