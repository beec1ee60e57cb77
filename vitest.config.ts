import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.ts';

/**
 * Test files that need a process of their own: one that sets the environment
 * before its imports read it (`vi.hoisted`: shared/platform/config.ts and a few
 * modules read it once, on import), replaces a module (`vi.mock`), loads them
 * all again (`vi.resetModules`), or moves the clock (ids made at a later time
 * hold back the process's next ones until then: shared/platform/ids.ts never
 * goes back).
 */
const ownModules = readdirSync(join(import.meta.dirname, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name}`)
  .filter((file) => /\bvi\.(hoisted|mock|resetModules|useFakeTimers|setSystemTime)\(|\bmakeRoom\(/.test(readFileSync(join(import.meta.dirname, file), 'utf8')));

const common = {
  // Points shared/platform/config.ts at the test services before any test file imports it.
  setupFiles: ['test/support/setup.ts'],
  pool: 'forks' as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // expect.poll's default of 1 s is a wait on the machine's speed: under load a page's answer can take longer (a waiting
  // poll still ends as soon as its value holds, so passing tests take no longer).
  expect: { poll: { timeout: 10_000 } },
};

export default defineConfig({
  test: {
    // One DynamoDB Local and one SES emulator for the whole run, on free ports.
    globalSetup: ['test/support/global-setup.ts'],
    // vitest's default on 2 cores is one worker; the files mostly wait on DynamoDB Local, the emulator, Chromium and timers,
    // so more overlap well: on 2 idle cores three workers took 409 s, four 393 s (docs/performance.md, "The test suite").
    maxWorkers: 4,
    sequence: { sequencer: LongestFirstSequencer },
    // Every request writes an access log line; show the logs of failing tests only. The reporter reads this from the root
    // configuration, not a project's.
    silent: 'passed-only',
    projects: [
      // Importing the SDK clients, the handlers and their transforms costs a file about 2 s of CPU: the files that can share
      // a worker's modules do (test/support/setup.ts resets what they leave behind), the others get a process each.
      { test: { ...common, name: 'shared', include: ['test/**/*.test.ts'], exclude: ownModules, isolate: false, provide: { sharedModules: true } } },
      { test: { ...common, name: 'isolated', include: ownModules } },
    ],
  },
});
