import { defineConfig } from "vitest/config";

/** `npm run test:resilience`: real service processes over loopback; one file at a time on 2 cores. */
export default defineConfig({
  test: {
    include: ["test/resilience/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
