import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // The matcher and the hooks that end every program a test started.
    setupFiles: ["shotty/vitest"],
    // One session host for the whole run, in a private directory of its own.
    globalSetup: ["./global-setup.ts"],
    // Inner vitest and jest runs start their own workers: a few seconds each.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
