import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local and one SES emulator for the whole run, on free ports.
    globalSetup: ['test/support/global-setup.ts'],
    // Points shared/config.ts at them before any test file imports it.
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
