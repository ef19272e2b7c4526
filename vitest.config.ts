import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Safety nets only (no test asserts how long something took): generous, so a loaded machine passes.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    // Files share a worker's module cache: keel has no module-level mutable state, and tests restore
    // any process state they touch. Saves re-importing keel and its dependencies for every file.
    isolate: false,
  },
});
