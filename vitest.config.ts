import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
    // Files share a worker's module cache: keel has no module-level mutable state, and tests restore
    // any process state they touch. Saves re-importing keel and its dependencies for every file.
    isolate: false,
  },
});
