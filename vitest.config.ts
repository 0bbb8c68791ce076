import { defineConfig } from "vitest/config";
import { PostgresReporter } from "./test/postgres-reporter.js";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["test/resilience/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", new PostgresReporter()],
  },
});
