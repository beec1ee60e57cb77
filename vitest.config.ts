import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local and one SES emulator for the whole run, on free ports.
    globalSetup: ['test/support/global-setup.ts'],
    // Points shared/platform/config.ts at them before any test file imports it.
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    // vitest's default on 2 cores is one worker; the files mostly wait on DynamoDB Local, the emulator and timers, so two overlap well (549 s → about 500 s under other load).
    maxWorkers: 2,
    // Every request writes an access log line; show the logs of failing tests only.
    silent: 'passed-only',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
