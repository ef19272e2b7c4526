import { defineConfig } from "vitest/config";

/** `npm run compat`: checks against real-world manifests outside this repository (../shared/fixtures). */
export default defineConfig({
  test: {
    include: ["test/compat/**/*.compat.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
